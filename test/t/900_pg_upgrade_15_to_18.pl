# pg_upgrade across majors: a database whose tables hold bloom and multibloom
# values, upgraded from an older PostgreSQL (15) to the one under test (18),
# keeps every bit of every value (each value's binary form is hashed before
# and after, on the old and the new server) and its filters answer probes as
# before.  pg_upgrade copies the data files, so the values are not rewritten:
# what this checks is that the new server reads the old one's storage of the
# types (varlena headers, TOAST, compression) into the same bytes.
#
# Needs both installations, each with this build of the extension:
# BLOOMFILTER_UPGRADE_FROM names the older one's pg_config (bash scripts/test
# sets it when it tests the newest major after the oldest); the newer one is
# the one whose binaries come first in PATH, as for every TAP test.
use strict;
use warnings;
use File::Basename qw(dirname);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $old_pg_config = $ENV{BLOOMFILTER_UPGRADE_FROM} // '';
plan skip_all => 'pg_upgrade across majors: BLOOMFILTER_UPGRADE_FROM (the pg_config '
  . 'of an older installation holding this build) is not set; the run of '
  . '"bash scripts/test" over every major sets it for the newest one'
  unless $old_pg_config;

sub major_of
{
	my ($pg_config) = @_;
	my $out = `"$pg_config" --version`;
	die "cannot run $pg_config\n" unless defined $out && $out =~ /PostgreSQL (\d+)/;
	return $1;
}
my $old_major = major_of($old_pg_config);
my $new_major = major_of('pg_config');
plan skip_all => "pg_upgrade across majors: the older installation ($old_major) "
  . "is not older than the one under test ($new_major)"
  unless $old_major < $new_major;
note "pg_upgrade from PostgreSQL $old_major to $new_major";

my $old_bindir = `"$old_pg_config" --bindir`;
chomp $old_bindir;

# Both clusters with data checksums: 18 enables them by default, and
# pg_upgrade needs the old and the new cluster to agree.
my $old = PostgreSQL::Test::Cluster->new('old', install_path => dirname($old_bindir));
$old->init(extra => ['--data-checksums']);
$old->start;
is($old->safe_psql('postgres', 'SHOW server_version_num') =~ s/\d{4}$//r,
	$old_major, "the old cluster runs PostgreSQL $old_major");

$old->safe_psql('postgres', 'CREATE DATABASE stored');
$old->safe_psql('stored', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE blooms (id int PRIMARY KEY, note text, f bloom);
INSERT INTO blooms VALUES
 -- written by format version 1 (as in sql/005_bloom_golden.sql)
 (1, 'golden ints', 'AQABAAABAAAAAAAAAAAAAAAAAAADAAAAAAAAAAMAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAEAAAAEAAAgBAIAAAAAAAAAAkAAAAAAAAAAAAIAAAAA='),
 (2, 'golden text', 'AQABAGQAAAAAAAAAAAAAAAAAAAACAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAEJAIBAAAIAAAAIAAAAAAA=='),
 (3, 'empty', bloom_empty(1000, 0.01)),
 (4, 'null', NULL),
 (5, 'text values', bloom_add_all(bloom_empty(100, 0.001), ARRAY['a', 'é', ''])),
 -- 1.2 MB, mostly zero: compressed and toasted
 (6, 'large sparse', bloom_add_all(bloom_empty(1000000, 0.01), array(SELECT generate_series(1, 1000)))),
 -- 120 kB, half full: toasted, incompressible
 (7, 'large dense', bloom_add_all(bloom_empty(100000, 0.01), array(SELECT generate_series(1, 100000)))),
 (8, 'aggregate', (SELECT bloom_agg(g) FROM generate_series(1, 5000) g));
CREATE TABLE multiblooms (id int PRIMARY KEY, f multibloom);
INSERT INTO multiblooms VALUES
 (1, multibloom_add(multibloom_empty(2, 100, 0.01), 7, 'seven'::text)),
 (2, multibloom_empty(3, 1000, 0.01)),
 (3, NULL),
 (4, (SELECT multibloom_agg(g, g % 7, 'k' || g) FROM generate_series(1, 20000) g));
});
# the other layouts, where this build has them
for my $layout ('blocked', 'matrix')
{
	my ($ret) = $old->psql('stored', "SELECT bloom_empty(100, 0.01, '$layout')");
	next if $ret != 0;
	$old->safe_psql('stored', qq{INSERT INTO blooms SELECT 100 + count(*), '$layout',
		bloom_add_all(bloom_empty(5000, 0.01, '$layout'), array(SELECT generate_series(1, 3000)))
		FROM blooms WHERE id >= 100});
}

# Every value's binary form (its hash and length), and answers to probes.
my $fingerprint = q{
SELECT (SELECT string_agg(format('bloom %s %s %s', id, octet_length(f::bytea),
                                 coalesce(encode(sha256(f::bytea), 'hex'), 'null')), E'\n' ORDER BY id)
        FROM blooms)
       || E'\n' ||
       (SELECT string_agg(format('multibloom %s %s %s', id, octet_length(f::bytea),
                                 coalesce(encode(sha256(f::bytea), 'hex'), 'null')), E'\n' ORDER BY id)
        FROM multiblooms)};
my $probes = q{
SELECT (SELECT string_agg(format('bloom %s %s', id,
                                 (SELECT string_agg(bloom_contains(f, g)::int::text, '' ORDER BY g)
                                  FROM generate_series(1, 40) g)), E'\n' ORDER BY id)
        FROM blooms WHERE f IS NOT NULL AND note NOT LIKE '%text%')
       || E'\n' ||
       (SELECT format('multibloom 1 %s %s', multibloom_contains(f, 7, 'seven'::text),
                      multibloom_contains(f, 8, 'seven'::text))
        FROM multiblooms WHERE id = 1)
       || E'\n' ||
       (SELECT string_agg(format('multibloom %s %s', id,
                                 (SELECT string_agg(multibloom_contains(f, g, g % 7, 'k' || g)::int::text, ''
                                                    ORDER BY g)
                                  FROM generate_series(1, 40) g)), E'\n' ORDER BY id)
        FROM multiblooms WHERE id IN (2, 4))};
my $before = $old->safe_psql('stored', $fingerprint);
my $answers = $old->safe_psql('stored', $probes);
like($before, qr/^bloom 1 \d+ [0-9a-f]{64}$/m, 'the stored values are fingerprinted');
like($answers, qr/^bloom 6 1{40}$/m, 'the stored filters answer on the old server');
like($answers, qr/^multibloom 4 1{40}$/m, 'the stored multibloom filters answer on the old server');
my $extversion = $old->safe_psql('stored',
	"SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'");

# Debian 12's PostgreSQL 15 (15.20-0+deb12u1) stamps every column with an
# attribute option, pg_attver, that no upstream release knows: pg_upgrade to
# an upstream 18 then fails on "ALTER COLUMN ... SET (pg_attver=...)" for
# any table, whatever its types.  The option has no bearing on storage; it
# is cleared from this database's own tables so that the upgrade can test
# what this file is about.
my $stamped = $old->safe_psql('stored', q{
	UPDATE pg_attribute SET attoptions = NULL
	WHERE attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)
	  AND array_to_string(attoptions, ',') ~ '^pg_attver=[0-9]+$'
	RETURNING 1});
note 'cleared the pg_attver option of ' . scalar(my @n = split /\n/, $stamped) . ' columns' if $stamped;
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('new');
$new->init(extra => ['--data-checksums']);

# pg_upgrade writes its scripts into the current directory.
chdir ${PostgreSQL::Test::Utils::tmp_check};
my $upgraded = run_log(
	[
		'pg_upgrade', '--no-sync',
		'--old-datadir' => $old->data_dir,
		'--new-datadir' => $new->data_dir,
		'--old-bindir' => $old_bindir,
		'--new-bindir' => $new->config_data('--bindir'),
		'--socketdir' => $new->host,
		'--old-port' => $old->port,
		'--new-port' => $new->port,
		'--copy',
	]);
ok($upgraded, "pg_upgrade from $old_major to $new_major");
if (!$upgraded)
{
	# its own logs, which it leaves in the new cluster's directory
	for my $log (glob($new->data_dir . '/pg_upgrade_output.d/*/log/*.log'))
	{
		my @lines = split /^/, slurp_file($log);
		splice(@lines, 0, @lines - 40) if @lines > 40;
		diag("---- $log (last 40 lines)\n", @lines);
	}
	die "pg_upgrade failed\n";
}

$new->start;
is($new->safe_psql('postgres', 'SHOW server_version_num') =~ s/\d{4}$//r,
	$new_major, "the upgraded cluster runs PostgreSQL $new_major");
is($new->safe_psql('stored', "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"),
	$extversion, 'the extension keeps its version');
is($new->safe_psql('stored', $fingerprint), $before, 'every stored value kept every bit');
is($new->safe_psql('stored', $probes), $answers, 'the filters answer every probe as before');
is($new->safe_psql('stored', 'SELECT count(*) FROM blooms WHERE (f::bytea)::bloom IS DISTINCT FROM f'),
	'0', 'f::bytea::bloom = f for every row after the upgrade');
$new->stop;
done_testing();
