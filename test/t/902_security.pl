# Security: the install script cannot be hijacked through search_path or
# temporary objects, no function is SECURITY DEFINER or carries settings,
# every function works for a role without privileges, pre-existing objects
# of the same name make CREATE EXTENSION fail rather than be adopted, and a
# database owner can install the extension when it is marked trusted.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('security');
$node->init;
$node->start;

$node->safe_psql('postgres', q{
CREATE ROLE alice LOGIN;				-- no privileges at all
CREATE ROLE bob LOGIN;					-- owns a database, nothing else
CREATE DATABASE bobs OWNER bob;
});

# Objects of the extension whose dependencies lead outside pg_catalog and
# the extension's own schema (empty if nothing was hijacked).
my $foreign_refs = q{
SELECT string_agg(pg_describe_object(d.classid, d.objid, 0) || ' -> '
                  || pg_describe_object(d.refclassid, d.refobjid, 0), E'\n')
FROM pg_depend d
JOIN pg_depend m ON m.classid = d.classid AND m.objid = d.objid
	AND m.refclassid = 'pg_extension'::regclass AND m.deptype = 'e'
	AND m.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
CROSS JOIN LATERAL pg_identify_object(d.refclassid, d.refobjid, 0) r
WHERE d.refclassid <> 'pg_extension'::regclass
  AND r.schema IS NOT NULL
  AND r.schema NOT IN ('pg_catalog', (SELECT n.nspname FROM pg_extension e
                         JOIN pg_namespace n ON n.oid = e.extnamespace
                         WHERE e.extname = 'bloomfilter'))};

# 1. A hostile session: shadowing types in pg_temp (searched first for
#    types), look-alike functions and operators in a schema ahead of
#    everything in search_path.
$node->safe_psql('postgres', 'CREATE DATABASE hostile');
my ($ret, $out, $err) = $node->psql('hostile', qq{
CREATE SCHEMA evil;
CREATE TYPE pg_temp.bytea AS (x int);
CREATE TYPE pg_temp.text AS (x int);
CREATE TYPE pg_temp.float8 AS (x int);
CREATE TYPE pg_temp.cstring AS (x int);
CREATE TYPE pg_temp.anyelement AS (x int);
CREATE TYPE pg_temp.record AS (x int);
CREATE FUNCTION evil.contsel(internal, oid, internal, integer) RETURNS float8
	LANGUAGE internal AS 'contsel';
CREATE FUNCTION evil.eqsel(internal, oid, internal, integer) RETURNS float8
	LANGUAGE internal AS 'eqsel';
CREATE FUNCTION evil.textin(cstring) RETURNS pg_catalog.text
	LANGUAGE internal AS 'textin';
CREATE FUNCTION evil.int4eq(int, int) RETURNS bool LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR evil.= (LEFTARG = int, RIGHTARG = int, FUNCTION = evil.int4eq);
SET search_path = evil, pg_temp, public;
-- the extension goes where the session's first schema is unless told:
-- here public, with the hostile schema still first on the search_path
CREATE EXTENSION bloomfilter SCHEMA public;
$foreign_refs;
});
is($ret, 0, 'CREATE EXTENSION succeeds in a hostile session') or diag($err);
is($out, '', 'no object of the extension refers to the hostile schema or pg_temp');
is( $node->safe_psql('hostile', q{SELECT count(*) FROM pg_depend
		WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'}) > 20,
	1, 'the extension was really installed there');

# 2. No SECURITY DEFINER, no SET clauses, everything executable by PUBLIC.
is( $node->safe_psql('hostile', q{
	SELECT count(*) FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass
		AND d.objid = p.oid AND d.deptype = 'e'
		AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
	WHERE p.prosecdef OR p.proconfig IS NOT NULL
	   OR NOT has_function_privilege('alice', p.oid, 'EXECUTE')}),
	'0', 'no SECURITY DEFINER or SET, and alice may execute every function');

# 3. Pre-existing objects with the extension's names are not adopted.
$node->safe_psql('postgres', 'CREATE DATABASE squatted');
$node->safe_psql('squatted',
	q{CREATE FUNCTION public.bloom_from_bytea(bytea) RETURNS bytea LANGUAGE sql AS 'SELECT $1'});
($ret, $out, $err) = $node->psql('squatted', 'CREATE EXTENSION bloomfilter');
isnt($ret, 0, 'CREATE EXTENSION fails when a function of the same name exists');
like($err, qr/already exists/, '... saying that it already exists');

# 4. An ordinary role uses every function.
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
my @checks = (
	q{SELECT bloom_contains(bloom_add(bloom_empty(100), 42), 42)},
	q{SELECT bloom_add_all(bloom_empty_with(1000, 3), ARRAY['a', 'b']) @> 'a'::text},
	q{SELECT 7 <@ (bloom_add(bloom_empty(100), 7) | bloom_empty(100))},
	q{SELECT (bloom_add(bloom_empty(100), 7) & bloom_add(bloom_empty(100), 7)) = bloom_add(bloom_empty(100), 7)},
	q{SELECT bloom_empty(100) <> bloom_add(bloom_empty(100), 1)},
	q{SELECT bloom_cardinality(bloom_add(bloom_empty(100), 1)) > 0 AND bloom_fpp(bloom_empty(100)) = 0},
	q{SELECT (bloom_info(bloom_empty(100, 0.01, 'classic'))).nbits > 0},
	q{SELECT bloom_add(bloom_empty(10), 1)::text::bloom::bytea::bloom = bloom_add(bloom_empty(10), 1)},
	q{CREATE TEMP TABLE t AS SELECT bloom_add(bloom_empty(10), 1) AS f;
	  UPDATE t SET f = bloom_add(f, 2); SELECT bloom_contains(f, 2) FROM t},
	q{SELECT count(DISTINCT f) = 2 AND count(*) = 3
	  FROM (VALUES (bloom_empty(10)), (bloom_add(bloom_empty(10), 1)), (bloom_empty(10))) v(f)},
);
# aggregates and multibloom, when this build has them
for my $extra (
	[ 'bloom_agg', q{SELECT bloom_contains(bloom_agg(g), 5) FROM generate_series(1, 10) g} ],
	[ 'bloom_union_agg', q{SELECT bloom_contains(bloom_union_agg(bloom_add(bloom_empty(10), g)), 5) FROM generate_series(1, 10) g} ],
	[ 'multibloom_empty', q{SELECT multibloom_contains(multibloom_add(multibloom_empty(2, 10), 1, 'x'::text), 1, 'x'::text)} ],
	[ 'multibloom_agg_fixed', q{SELECT multibloom_contains(multibloom_agg_fixed(10, 0.01, g, -g), 5, -5) FROM generate_series(1, 10) g} ])
{
	push @checks, $extra->[1]
	  if $node->safe_psql('postgres', "SELECT count(*) FROM pg_proc WHERE proname = '$extra->[0]'") > 0;
}
for my $sql (@checks)
{
	($ret, $out, $err) = $node->psql('postgres', $sql, extra_params => [ '-U', 'alice' ]);
	is("$ret|$out", '0|t', "alice: $sql") or diag($err);
}
is($node->safe_psql('postgres', q{SELECT rolsuper OR rolcreaterole OR rolcreatedb FROM pg_roles WHERE rolname = 'alice'}),
	'f', 'alice has no special privileges');

# 5. Trusted or not: what the control file says is what a database owner gets.
my $trusted = $node->safe_psql('postgres',
	q{SELECT trusted FROM pg_available_extension_versions WHERE name = 'bloomfilter' AND version = (SELECT default_version FROM pg_available_extensions WHERE name = 'bloomfilter')});
($ret, $out, $err) = $node->psql('bobs', qq{
CREATE TYPE pg_temp.float8 AS (x int);
SET search_path = pg_temp, public;
CREATE EXTENSION bloomfilter SCHEMA public;
$foreign_refs;
}, extra_params => [ '-U', 'bob' ]);
if ($trusted eq 't')
{
	is($ret, 0, 'trusted: the database owner (not a superuser) can install it') or diag($err);
	is($out, '', 'trusted: ... and a hostile session of that owner cannot hijack it');
	is( $node->safe_psql('bobs',
			q{SELECT count(*) FROM pg_proc WHERE proname LIKE 'bloom%' AND proowner <> 10}),
		'0', 'trusted: the objects belong to the bootstrap superuser, not the installer');
}
else
{
	isnt($ret, 0, 'untrusted: a database owner cannot install it');
	like($err, qr/permission denied/, '... permission denied');
}

$node->stop;
done_testing();
