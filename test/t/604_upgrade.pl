# Upgrades: ALTER EXTENSION bloomfilter UPDATE from every version that has an
# update path to the default version keeps stored filters readable and
# byte-identical, and leaves the same objects as a fresh install.
#
# Each release ships sql/bloomfilter--OLD--NEW.sql (the Makefile installs
# every such file).  This test needs no change when one is added: it finds
# the paths with pg_extension_update_paths, creates the extension at each old
# version, stores filters, updates, and compares.  While only 1.0 exists it
# checks the same things for 1.0 itself (ALTER EXTENSION UPDATE is then a
# no-op), so the mechanism is exercised from the first release on.
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

# Everything that defines the extension's interface, in a comparable form.
my $signature = q{
SELECT string_agg(d, E'\n' ORDER BY d) FROM (
	SELECT pg_describe_object(classid, objid, 0)
	       || CASE WHEN classid = 'pg_proc'::regclass THEN
	            (SELECT ' ' || pg_get_function_result(p.oid) || ' ' || p.provolatile::text
	                    || p.proparallel::text || p.proisstrict::text || p.prosecdef::text
	                    || ' ' || p.prosrc || ' ' || coalesce(p.probin, '')
	                    || ' ' || coalesce(obj_description(p.oid, 'pg_proc'), 'NO COMMENT')
	             FROM pg_proc p WHERE p.oid = objid)
	          ELSE '' END AS d
	FROM pg_depend
	WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
) s};

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION bloomfilter');
my $fresh = $node->safe_psql('fresh', $signature);
like($fresh, qr/function bloom_add/, 'fresh install described');

# Filters written by format version 1 (as in sql/602_bloom_golden.sql).
my @golden = (
	'AQABAAABAAAAAAAAAAAAAAAAAAADAAAAAAAAAAMAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAEAAAAEAAAgBAIAAAAAAAAAAkAAAAAAAAAAAAIAAAAA=',
	'AQABAGQAAAAAAAAAAAAAAAAAAAACAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAEJAIBAAAIAAAAIAAAAAAA==');

my @sources = split /\n/, $node->safe_psql('postgres', qq{
	SELECT source FROM pg_extension_update_paths('bloomfilter')
	WHERE target = '$default' AND path IS NOT NULL ORDER BY source});
note 'update paths to ' . $default . ': ' . (@sources ? join(', ', @sources) : 'none yet');

for my $from (@sources, $default)
{
	my $db = 'from_' . ($from =~ s/\W/_/gr);
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, qq{
		CREATE EXTENSION bloomfilter VERSION '$from';
		CREATE TABLE stored (id int, f bloom);
		INSERT INTO stored VALUES (1, '$golden[0]'), (2, '$golden[1]'),
			(3, bloom_add_all(bloom_empty(1000, 0.01), array(SELECT generate_series(1, 500))));
	});
	my $before = $node->safe_psql($db, 'SELECT string_agg(md5(f::bytea), \',\' ORDER BY id) FROM stored');

	$node->safe_psql($db, 'ALTER EXTENSION bloomfilter UPDATE');
	is($node->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"),
		$default, "from $from: updated to $default");
	is($node->safe_psql($db, 'SELECT string_agg(md5(f::bytea), \',\' ORDER BY id) FROM stored'),
		$before, "from $from: stored filters byte-identical after the update");
	is( $node->safe_psql($db, q{
		SELECT bool_and(CASE id WHEN 1 THEN bloom_contains(f, 1) AND bloom_contains(f, 3)
		                        WHEN 2 THEN bloom_contains(f, 'alpha'::text)
		                        ELSE bloom_contains(f, 500) END)
		       AND bool_and(f::text::bloom = f)
		FROM stored}),
		't', "from $from: stored filters read and answer after the update");
	is($node->safe_psql($db, $signature), $fresh,
		"from $from: same objects, flags and comments as a fresh install of $default");
}

$node->stop;
done_testing();
