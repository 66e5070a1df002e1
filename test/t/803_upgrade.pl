# Upgrades: ALTER EXTENSION bloomfilter UPDATE from every version that has an
# update path to the default version keeps stored filters readable and
# byte-identical, and leaves the same objects as a fresh install.
#
# Each release ships extension/bloomfilter--OLD--NEW.sql (the Makefile
# installs every such file) and keeps the install script of every released
# version (extension/bloomfilter--1.0.sql is frozen).  This test needs no
# change when one is added: it finds the paths with
# pg_extension_update_paths, creates the extension at each old version,
# stores filters, updates, and compares.  The default version itself goes
# through the same checks (its update is a no-op).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->start;

my $default = $node->safe_psql('postgres',
	"SELECT default_version FROM pg_available_extensions WHERE name = 'bloomfilter'");
like($default, qr/^\d+\.\d+/, "default version is $default");

# Everything that defines the extension's interface, in a comparable form:
# each member object with, for functions, their arguments, result, flags,
# support function, C symbol and library; for aggregates, their support
# functions and state; for operators, their function, estimators,
# commutator, negator and hash/merge flags; for operator families, their
# operators and functions; and every object's comment.
my $signature = q{
SELECT string_agg(d, E'\n' ORDER BY d) FROM (
	SELECT pg_describe_object(classid, objid, 0)
	       || CASE classid
	          WHEN 'pg_proc'::regclass THEN
	            (SELECT ' (' || pg_get_function_arguments(p.oid) || ') ' || pg_get_function_result(p.oid)
	                    || ' ' || p.provolatile::text || p.proparallel::text || p.proisstrict::text
	                    || p.prosecdef::text || ' support ' || p.prosupport::regproc::text
	                    || ' ' || p.prosrc || ' ' || coalesce(p.probin, '')
	                    || coalesce(' aggregate ' || (
	                         SELECT concat_ws(' ', a.aggkind, a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
	                                          a.aggserialfn, a.aggdeserialfn, a.aggtranstype::regtype,
	                                          a.aggtransspace, a.agginitval)
	                         FROM pg_aggregate a WHERE a.aggfnoid = p.oid), '')
	             FROM pg_proc p WHERE p.oid = objid)
	          WHEN 'pg_operator'::regclass THEN
	            (SELECT concat_ws(' ', '', o.oprcode, o.oprrest, o.oprjoin, o.oprcom::regoperator,
	                              o.oprnegate::regoperator, o.oprcanhash, o.oprcanmerge)
	             FROM pg_operator o WHERE o.oid = objid)
	          WHEN 'pg_opfamily'::regclass THEN
	            (SELECT ' ' || coalesce(string_agg(m, ', ' ORDER BY m), '') FROM (
	               SELECT 'operator ' || amopstrategy || ' ' || amopopr::regoperator AS m
	               FROM pg_amop WHERE amopfamily = objid
	               UNION ALL
	               SELECT 'function ' || amprocnum || ' ' || amproc::regprocedure
	               FROM pg_amproc WHERE amprocfamily = objid) ms)
	          ELSE '' END
	       || ' comment: ' || coalesce(obj_description(objid, classid::regclass::name), 'none') AS d
	FROM pg_depend
	WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
) s};

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION bloomfilter');
my $fresh = $node->safe_psql('fresh', $signature);
like($fresh, qr/function bloom_add/, 'fresh install described');
like($fresh, qr/operator family bloom_ops for access method btree function 1 bloom_cmp/,
	'the description includes operator families and their members');

# Filters written by format version 1 (as in sql/005_bloom_golden.sql).
my @golden = (
	'AQABAAABAAAAAAAAAAAAAAAAAAADAAAAAAAAAAMAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAEAAAAEAAAgBAIAAAAAAAAAAkAAAAAAAAAAAAIAAAAA=',
	'AQABAGQAAAAAAAAAAAAAAAAAAAACAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAEJAIBAAAIAAAAIAAAAAAA==');

my @sources = split /\n/, $node->safe_psql('postgres', qq{
	SELECT source FROM pg_extension_update_paths('bloomfilter')
	WHERE target = '$default' AND path IS NOT NULL ORDER BY source});
note 'update paths to ' . $default . ': ' . (@sources ? join(', ', @sources) : 'none');
ok((grep { $_ eq '1.0' } @sources) || $default eq '1.0', "an update path from 1.0 to $default exists");

my $bytes = q{SELECT string_agg(id || ':' || coalesce(md5(f::bytea), 'null') || ':'
                                || coalesce(md5(m::bytea), 'null'), ',' ORDER BY id) FROM stored};
for my $from (@sources, $default)
{
	my $db = 'from_' . ($from =~ s/\W/_/gr);
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	# Written with the functions every version has.
	$node->safe_psql($db, qq{
		CREATE EXTENSION bloomfilter VERSION '$from';
		CREATE TABLE stored (id int, f bloom, m multibloom);
		INSERT INTO stored VALUES (1, '$golden[0]', NULL), (2, '$golden[1]', NULL),
			(3, bloom_add_all(bloom_empty(1000, 0.01), array(SELECT generate_series(1, 500))),
			    multibloom_add(multibloom_empty(2, 100), 1, 'one'::text)),
			(4, (SELECT bloom_agg(g) FROM generate_series(1, 2000) g),
			    (SELECT multibloom_agg(g, g % 7) FROM generate_series(1, 2000) g)),
			(5, (SELECT bloom_agg(g, 1000, 0.01, 'matrix') FROM generate_series(1, 300) g),
			    (SELECT multibloom_agg_sized(1000, 0.01, g, g::text) FROM generate_series(1, 300) g));
		CREATE VIEW sized AS
			SELECT multibloom_agg_sized(1000, 0.01, g, g::text) AS m FROM generate_series(1, 300) g;
		-- per-day filters of one shape, and a view of their roll-ups: the
		-- aggregates whose state changed in 1.2 must keep it working
		CREATE TABLE days (d int, f bloom, m multibloom);
		INSERT INTO days
			SELECT g % 3, bloom_agg(g, 1000, 0.01), multibloom_agg_sized(1000, 0.01, g, g % 7)
			FROM generate_series(1, 900) g GROUP BY 1;
		CREATE VIEW rollups AS
			SELECT bloom_union_agg(f) AS u, bloom_intersect_agg(f) AS i, multibloom_union_agg(m) AS mu
			FROM days;
	});
	my $before = $node->safe_psql($db, $bytes);
	my $rollups = q{SELECT md5(u::bytea) || ' ' || md5(i::bytea) || ' ' || md5(mu::bytea) FROM rollups};
	my $rollups_before = $node->safe_psql($db, $rollups);
	my $view_oid = $node->safe_psql($db, q{SELECT 'rollups'::regclass::oid});

	# A session that prepared a roll-up before the update runs it after.
	my $session = $node->background_psql($db);
	$session->query_safe(q{PREPARE rollup AS
		SELECT md5(bloom_union_agg(f)::bytea) || ' ' || md5(multibloom_union_agg(m)::bytea) FROM days});
	my $prepared_before = $session->query_safe('EXECUTE rollup');

	$node->safe_psql($db, 'ALTER EXTENSION bloomfilter UPDATE');
	is($session->query_safe('EXECUTE rollup'), $prepared_before,
		"from $from: a statement prepared before the update runs after it, same result");
	$session->quit;
	is($node->safe_psql($db, q{SELECT 'rollups'::regclass::oid}) . ' ' . $node->safe_psql($db, $rollups),
		"$view_oid $rollups_before",
		"from $from: a view using the set-operation aggregates survives the update, same result");
	is($node->safe_psql($db, q{SELECT md5(bloom_union_agg(f)::bytea) || ' ' || md5(multibloom_union_agg(m)::bytea)
	                          FROM (SELECT * FROM days ORDER BY d DESC) s}),
		$prepared_before, "from $from: the updated aggregates give the same result");
	is($node->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"),
		$default, "from $from: updated to $default");
	is($node->safe_psql($db, $bytes), $before,
		"from $from: stored bloom and multibloom values byte-identical after the update");
	is( $node->safe_psql($db, q{
		SELECT bool_and(CASE id WHEN 1 THEN bloom_contains(f, 1) AND bloom_contains(f, 3)
		                        WHEN 2 THEN bloom_contains(f, 'alpha'::text)
		                        WHEN 3 THEN bloom_contains(f, 500) AND multibloom_contains(m, 1, 'one'::text)
		                        WHEN 4 THEN bloom_contains(f, 2000) AND multibloom_contains(m, 2000, 2000 % 7)
		                        ELSE bloom_contains(f, 300) AND multibloom_contains(m, 300, '300'::text) END)
		       AND bool_and(f::text::bloom = f)
		       AND bool_and(m IS NULL OR m::text::multibloom = m)
		FROM stored}),
		't', "from $from: stored values read and answer after the update");
	is($node->safe_psql($db, $signature), $fresh,
		"from $from: same objects, flags and comments as a fresh install of $default");
	# What the update brought to stored data and to objects made before it.
	is( $node->safe_psql($db, q{
		CREATE INDEX ON stored USING hash (f);
		CREATE INDEX ON stored USING hash (m);
		SELECT (SELECT count(DISTINCT f) FROM stored) || ' ' || (SELECT count(DISTINCT m) FROM stored)
		       || ' ' || ((SELECT m FROM sized)
		                  = (SELECT multibloom_agg_fixed(1000, 0.01, g, g::text) FROM generate_series(1, 300) g))::text}),
		'5 3 true', "from $from: stored values are indexed and compared; a view of the old aggregate name still works");
}

$node->stop;
done_testing();
