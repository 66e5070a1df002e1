# Interop filter formats against the real systems: Guava itself (Debian's
# libguava-java) writes and reads 'guava' filters, DuckDB (its Node API)
# writes Parquet files whose split-block filters are imported and reads a
# file carrying a filter exported from here, and Spark's formats are checked
# against vectors built from Spark's published algorithm and test values
# (test/interop/README.md says how).  Every comparison is exact: PostgreSQL's
# answer for each value must equal the other system's.  A part is skipped,
# with a message, only when its tool is missing (java/guava.jar; node with
# @duckdb/node-api under $BLOOM_NPM_PREFIX, which scripts/test installs).
use strict;
use warnings;
use Encode qw(encode_utf8);
use File::Spec;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $src = File::Spec->rel2abs(($ENV{TESTDIR} // '.') . '/test/interop');
my $tmp = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir);
my $npm_prefix = $ENV{BLOOM_NPM_PREFIX} // '/var/cache/bloomfilter/npm';
my $guava_jar = '/usr/share/java/guava.jar';

my $node = PostgreSQL::Test::Cluster->new('interop');
$node->init;
$node->start;
$node->safe_psql('postgres',
	"CREATE DATABASE interop ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
$node->safe_psql('interop', 'CREATE EXTENSION bloomfilter');

sub sql { return $node->safe_psql('interop', $_[0]); }

# run(COMMAND...): its stdout; dies with its stderr if it fails.
sub run
{
	my @cmd = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run(\@cmd, '>', \$out, '2>', \$err,
		IPC::Run::timeout(4 * $PostgreSQL::Test::Utils::timeout_default))
	  or die "@cmd failed: $err";
	return $out;
}

sub write_file
{
	my ($path, $bytes) = @_;
	open(my $fh, '>:raw', $path) or die "$path: $!";
	print $fh $bytes;
	close $fh;
}

sub read_file
{
	my ($path) = @_;
	open(my $fh, '<:raw', $path) or die "$path: $!";
	local $/;
	my $bytes = <$fh>;
	close $fh;
	return $bytes;
}

# A table NAME (idx, v text) of the lines of FILE, idx in file order.
sub load_lines
{
	my ($name, $file) = @_;
	sql("DROP TABLE IF EXISTS $name;
		CREATE TABLE $name (idx serial PRIMARY KEY, v text);
		COPY $name (v) FROM '$file' (ENCODING 'UTF8')");
}

# The answers of bloom_contains(F, value) over a table of values, as a
# string of '0'/'1' in idx order.  F and VALUE are SQL expressions (VALUE
# of the column v).
sub answers
{
	my ($f, $value, $table) = @_;
	return sql("SELECT string_agg(CASE WHEN bloom_contains($f, $value) THEN '1' ELSE '0' END, ''
		ORDER BY idx) FROM $table");
}

sub ones { return ($_[0] =~ tr/1//); }

my %count;    # what was compared, for the summary at the end

# The two ways to build a filter of a foreign format here: the aggregate,
# and an empty filter of that format filled with bloom_add_all.  Each gives
# SQL selecting the filter of VALUE (an expression) over TABLE (and WHERE).
my %builders = (
	bloom_agg => sub {
		my ($value, $n, $fpp, $format, $from) = @_;
		return "SELECT bloom_agg($value, $n, $fpp, '$format') FROM $from";
	},
	bloom_add_all => sub {
		my ($value, $n, $fpp, $format, $from) = @_;
		return "SELECT bloom_add_all(bloom_empty($n, $fpp, '$format'), array_agg($value)) FROM $from";
	});

# ---------------------------------------------------------------- Guava

# funnel => [SQL type, SQL expression of v (text) as that type,
#            member(i), non-member(j)] as the lines of the values files.
my %funnel = (
	long => [ 'bigint', 'v::bigint',
		sub { ($_[0] - 500) * 7919 * 1000003 },
		sub { ($_[0] - 50000) * 7919 * 1000003 + 1 } ],
	integer => [ 'integer', 'v::integer',
		sub { ($_[0] - 500) * 7919 },
		sub { ($_[0] - 50000) * 7919 + 1 } ],
	string => [ 'text', 'v',
		sub { "guava-$_[0]-\x{e9}" . ($_[0] % 7 == 0 ? "\x{1d11e}" : '') },
		sub { "nm-$_[0]" } ],
	unencoded_chars => [ 'text', 'v',
		sub { "guava-$_[0]-\x{e9}" . ($_[0] % 7 == 0 ? "\x{1d11e}" : '') },
		sub { "nm-$_[0]" } ],
	bytes => [ 'bytea', "decode(v, 'hex')",
		sub { unpack('H*', pack('N', ($_[0] * 2654435761) % 4294967296)) . sprintf('%04x', $_[0]) . 'ff' },
		sub { unpack('H*', "nm$_[0]") } ],
);
my ($n_members, $n_nonmembers) = (1000, 100000);

SKIP:
{
	skip "java, javac or $guava_jar is missing (libguava-java, openjdk-17-jdk-headless): "
	  . 'the Guava checks do not run', 1
	  unless -r $guava_jar && system('sh', '-c', 'command -v javac >/dev/null && command -v java >/dev/null') == 0;

	run('javac', '-d', $tmp, '-cp', $guava_jar, "$src/GuavaFilters.java");
	my @java = ('java', '-cp', "$tmp:$guava_jar", 'GuavaFilters');

	for my $fn (sort keys %funnel)
	{
		my ($type, $expr, $member, $nonmember) = @{ $funnel{$fn} };
		my ($mfile, $nfile) = ("$tmp/g_$fn.members", "$tmp/g_$fn.nonmembers");
		write_file($mfile, join('', map { encode_utf8($member->($_)) . "\n" } 0 .. $n_members - 1));
		write_file($nfile, join('', map { encode_utf8($nonmember->($_)) . "\n" } 0 .. $n_nonmembers - 1));
		load_lines('g_members', $mfile);
		load_lines('g_nonmembers', $nfile);
		my $all_ones = '1' x $n_members;

		for my $strategy ('MITZ_32', 'MITZ_64')
		{
			my $what = "Guava $strategy $fn";
			my $ffile = "$tmp/g_${fn}_$strategy.bin";
			run(@java, 'write', $strategy, $fn, $n_members, '0.01', $mfile, $ffile);
			my $fhex = unpack('H*', read_file($ffile));

			# Import: PostgreSQL answers as mightContain does.
			sql("DROP TABLE IF EXISTS gf;
				CREATE TABLE gf AS SELECT bloom_import('\\x$fhex'::bytea, 'guava', 'funnel=$fn') AS f");
			is(answers('(SELECT f FROM gf)', $expr, 'g_members'), $all_ones,
				"$what imported: every member found");
			my $theirs = run(@java, 'read', $fn, $ffile, $nfile);
			chomp $theirs;
			my $ours = answers('(SELECT f FROM gf)', $expr, 'g_nonmembers');
			is($ours, $theirs, "$what imported: bloom_contains equals mightContain on $n_nonmembers non-members");
			note sprintf('%s: %d of %d non-members answer true in Guava, %d here',
				$what, ones($theirs), $n_nonmembers, ones($ours));
			is(sql("SELECT encode(bloom_export(f, 'guava'), 'hex') FROM gf"), $fhex,
				"$what: exporting the imported filter gives Guava's bytes back");
			$count{guava_filters_imported}++;
			$count{guava_members} += $n_members;
			$count{guava_nonmembers} += $n_nonmembers;

			# Export: a filter built here, read by Guava's readFrom.  The
			# default funnel of text is the UTF-8 string: unencoded chars is
			# reached only through import.
			next if $fn eq 'unencoded_chars';
			my $format = $strategy eq 'MITZ_32' ? 'guava32' : 'guava';
			for my $builder (sort keys %builders)
			{
				my $build = $builders{$builder}->($expr, $n_members, 0.01, $format, 'g_members');
				sql("DROP TABLE IF EXISTS gb; CREATE TABLE gb AS SELECT f FROM ($build) b(f)");
				my $ehex = sql("SELECT encode(bloom_export(f, 'guava'), 'hex') FROM gb");
				my $efile = "$tmp/g_${fn}_${strategy}_$builder.exported";
				write_file($efile, pack('H*', $ehex));
				is(run(@java, 'read', $fn, $efile, $mfile), "$all_ones\n",
					"$what built by $builder: Guava finds every member");
				$theirs = run(@java, 'read', $fn, $efile, $nfile);
				chomp $theirs;
				is(answers('(SELECT f FROM gb)', $expr, 'g_nonmembers'), $theirs,
					"$what built by $builder: Guava's mightContain equals bloom_contains on $n_nonmembers non-members");
				is($ehex, $fhex, "$what built by $builder: the bytes Guava writes for the same members, n and fpp");
				$count{guava_filters_exported}++;
				$count{guava_members} += $n_members;
				$count{guava_nonmembers} += $n_nonmembers;
			}
		}
	}
}

# -------------------------------------------------------------- Parquet

SKIP:
{
	my $node_bin = `sh -c 'command -v node'`;
	chomp $node_bin;
	skip "node or $npm_prefix/node_modules/\@duckdb/node-api is missing: the DuckDB checks do not run", 1
	  unless $node_bin ne '' && -d "$npm_prefix/node_modules/\@duckdb/node-api";
	local $ENV{BLOOM_NPM_PREFIX} = $npm_prefix;
	my @duck = ($node_bin, "$src/parquet.mjs");
	my $file = "$tmp/data.parquet";
	run(@duck, 'write', $tmp);

	# The file's filters, read from its footer.
	my @filters = map { [ split /\t/ ] } split /\n/,
	  run('/usr/bin/python3', "$src/parquet_filters.py", $file);
	my %pgtype = map { my @c = split /\t/; ($c[0] => $c[2]) } split /\n/, read_file("$tmp/columns.tsv");
	is(scalar(@filters), 2 * scalar(keys %pgtype), 'DuckDB wrote a filter for every column chunk');
	sql("CREATE TABLE pq_filters (rg int, col text, ptype text, off bigint, len int, raw bytea, f bloom);
		CREATE TABLE pq_values (rg int, col text, v text);
		CREATE TABLE pq_probes (col text, v text, rg int, excludes bool);
		COPY pq_values FROM '$tmp/values.tsv' (ENCODING 'UTF8');
		COPY pq_probes FROM '$tmp/probes.tsv' (ENCODING 'UTF8')");
	for my $f (@filters)
	{
		my ($rg, $col, $ptype, $off, $len, $hex) = @$f;
		sql("INSERT INTO pq_filters VALUES ($rg, '$col', '$ptype', $off, $len, '\\x$hex',
			bloom_import('\\x$hex'::bytea, 'parquet_header'))");
	}

	for my $col (sort keys %pgtype)
	{
		my $value = $pgtype{$col} eq 'bytea' ? "decode(v, 'hex')" : "v::$pgtype{$col}";
		my $ptype = lc(sql("SELECT DISTINCT ptype FROM pq_filters WHERE col = '$col'"));
		my ($n, $missed) = split /\|/, sql("SELECT count(*), count(*) FILTER (WHERE NOT bloom_contains(f, $value))
			FROM pq_values JOIN pq_filters USING (rg, col) WHERE col = '$col'");
		is($missed, 0, "Parquet column $col ($pgtype{$col}): every value of each row group is in its imported filter");
		$count{parquet_members} += $n;
		my ($probes, $excluded, $differ, $differ_typed) = split /\|/, sql("SELECT count(*),
				count(*) FILTER (WHERE excludes),
				count(*) FILTER (WHERE bloom_contains(f, $value) = excludes),
				count(*) FILTER (WHERE bloom_contains(bloom_import(raw, 'parquet_header', 'type=$ptype'), $value)
				                       IS DISTINCT FROM bloom_contains(f, $value))
			FROM pq_probes JOIN pq_filters USING (rg, col) WHERE col = '$col'");
		is($differ_typed, 0, "Parquet column $col: type=$ptype answers as the type's default");
		if ($excluded == 0)
		{
			my $nonmembers = sql("SELECT count(*) FROM pq_probes p JOIN pq_filters USING (rg, col)
				WHERE col = '$col' AND NOT EXISTS (SELECT FROM pq_values v WHERE (v.rg, v.col, v.v) = (p.rg, p.col, p.v))");
			my $fp = sql("SELECT count(*) FROM pq_probes p JOIN pq_filters USING (rg, col)
				WHERE col = '$col' AND bloom_contains(f, $value)
				AND NOT EXISTS (SELECT FROM pq_values v WHERE (v.rg, v.col, v.v) = (p.rg, p.col, p.v))");
			note "Parquet column $col: DuckDB's parquet_bloom_probe excludes nothing for this type; "
			  . "$fp of $nonmembers non-members answer true here";
			cmp_ok($fp, '<', $nonmembers * 0.05,
				"Parquet column $col: the imported filter rejects non-members (DuckDB's probe does not answer for this type)");
			$count{parquet_unprobed_nonmembers} += $nonmembers;
			next;
		}
		is($differ, 0, "Parquet column $col: bloom_contains equals DuckDB's parquet_bloom_probe on $probes (value, row group) pairs");
		$count{parquet_probes} += $probes;
		$count{parquet_excluded} += $excluded;
	}
	$count{parquet_filters} = scalar(@filters);

	# Export: a filter of integers built here replaces, byte for byte in
	# place, the filter of column a in row group 0; DuckDB then keeps that
	# row group for the filter's members and skips it for the rest.
	my ($off, $len, $nrg0) = split /\|/, sql("SELECT off, len, (SELECT count(DISTINCT v) FROM pq_values WHERE rg = 0 AND col = 'a')
		FROM pq_filters WHERE rg = 0 AND col = 'a'");
	# members of the new filter (row group 1's values), values of the file's
	# own row group 0, and values in neither
	my @vals = split /\n/, sql("SELECT v FROM pq_probes WHERE col = 'a' AND rg = 0 ORDER BY v::integer");
	write_file("$tmp/probe_a.txt", join('', map { "$_\n" } @vals));
	for my $builder (sort keys %builders)
	{
		my $build = $builders{$builder}->('v::integer', $nrg0, 0.01, 'parquet',
			"pq_values WHERE rg = 1 AND col = 'a'");
		sql("DROP TABLE IF EXISTS px; CREATE TABLE px AS SELECT f FROM ($build) b(f)");
		my $xhex = sql("SELECT encode(bloom_export(f, 'parquet_header'), 'hex') FROM px");
		is(length($xhex) / 2, $len,
			"a filter built by $builder has the size of DuckDB's for the same rate and count ($len bytes)");
		my $spliced = read_file($file);
		substr($spliced, $off, $len) = pack('H*', $xhex);
		write_file("$tmp/spliced.parquet", $spliced);
		my $probed = run(@duck, 'probe', "$tmp/spliced.parquet", 'a', "$tmp/probe_a.txt");
		write_file("$tmp/px_probes.tsv", $probed);
		sql("DROP TABLE IF EXISTS px_probes; CREATE TABLE px_probes (v text, rg int, excludes bool);
			COPY px_probes FROM '$tmp/px_probes.tsv'");
		my ($n, $kept_members, $members, $differ) = split /\|/, sql("SELECT count(*),
				count(*) FILTER (WHERE NOT excludes AND v IN (SELECT v FROM pq_values WHERE rg = 1 AND col = 'a')),
				count(*) FILTER (WHERE v IN (SELECT v FROM pq_values WHERE rg = 1 AND col = 'a')),
				count(*) FILTER (WHERE excludes = bloom_contains(f, v::integer))
			FROM px_probes, px WHERE rg = 0");
		is($kept_members, $members,
			"DuckDB keeps row group 0 for all $members members of the filter built by $builder");
		is($differ, 0,
			"DuckDB's parquet_bloom_probe with the filter built by $builder equals bloom_contains on $n values");
		$count{parquet_export_probes} += $n;
		# A value of row group 0 that the exported filter rejects: DuckDB's
		# scan now skips the row group, so the row is no longer found (10
		# times before).
		my $skipped = sql("SELECT v FROM pq_values, px WHERE rg = 0 AND col = 'a' AND NOT bloom_contains(f, v::integer)
			ORDER BY v::integer LIMIT 1");
		ok($skipped ne '', "the filter built by $builder rejects some value of row group 0") or next;
		is(run(@duck, 'count', $file, 'a', $skipped), "10\n", "DuckDB finds a = $skipped 10 times in the file it wrote");
		is(run(@duck, 'count', "$tmp/spliced.parquet", 'a', $skipped), "0\n",
			"DuckDB's scan skips row group 0 for a = $skipped with the filter built by $builder in place");
	}
}

# ---------------------------------------------------------------- Spark

# type => [member(i), non-member(j)] as SQL expressions of i and j
# (test/interop/SparkVectors.java defines them).
my %spark_values = (
	bigint => [ '(i - 500)::bigint * 7919 * 1000003', '(j - 5000)::bigint * 7919 * 1000003 + 1' ],
	integer => [ '(i - 500) * 7919', '(j - 5000) * 7919 + 1' ],
	text => [ "'spark-' || i || U&'\\00e9'", "'other-' || j" ],
	bytea => [ "convert_to('bin-' || i, 'UTF8')", "convert_to('nob-' || j, 'UTF8')" ],
);
my @vectors = map { [ split /\t/ ] } split /\n/, read_file("$src/spark_vectors.txt");

# XXH64: the known answers of Spark's test suite, through a one-block
# Parquet filter that holds just that hash.
my @xxh = grep { $_->[0] eq 'xxh64' } @vectors;
for my $v (@xxh)
{
	my (undef, $len, $input, $hash, $bitset) = @$v;
	my $others = join(', ', map { "'\\x$_->[2]'::bytea" } grep { $_->[1] != $len } @xxh);
	is(sql("SELECT bloom_contains(f, '\\x$input'::bytea),
			(SELECT bool_or(bloom_contains(f, o)) FROM unnest(ARRAY[$others]) o)
		FROM (SELECT bloom_import('\\x$bitset'::bytea, 'parquet', 'type=byte_array') AS f) s"),
		't|f', "XXH64 of Spark's $len-byte test input is $hash: found, and the other inputs are not");
	$count{xxh64_vectors}++;
}

for my $v (grep { $_->[0] eq 'filter' } @vectors)
{
	my (undef, $name, $version, $seed, $type, $hash, $n, $fpp, $hex, $positives) = @$v;
	my ($member, $nonmember) = @{ $spark_values{$type} };
	sql("DROP TABLE IF EXISTS sf;
		CREATE TABLE sf AS SELECT bloom_import('\\x$hex'::bytea, 'spark', 'hash=$hash') AS f");
	is(sql("SELECT count(*) FROM generate_series(0, $n - 1) i, sf WHERE NOT bloom_contains(f, $member)"), 0,
		"Spark vector $name: every one of its $n members found");
	is(sql("SELECT coalesce(string_agg(j::text, ',' ORDER BY j), '-') FROM generate_series(0, 9999) j, sf
		WHERE bloom_contains(f, $nonmember)"), $positives,
		"Spark vector $name: the same 10000 non-members answer true as in Spark's algorithm");
	is(sql("SELECT encode(bloom_export(f, 'spark'), 'hex') FROM sf"), $hex,
		"Spark vector $name: exported back, the same bytes");
	$count{spark_vectors}++;
	$count{spark_members} += $n;
	$count{spark_nonmembers} += 10000;

	# Built here: bloom_agg with Spark's sizing gives the same bytes when
	# it hashes as Spark's bloom_filter_agg does (xxhash64, seed 0).
	next unless $hash eq 'xxhash64' && $seed == 0;
	my $format = $version == 1 ? 'spark' : 'spark2';
	for my $builder (sort keys %builders)
	{
		my $build = $builders{$builder}->($member, $n, $fpp, $format, "generate_series(0, $n - 1) i");
		is(sql("SELECT encode(bloom_export(f, 'spark'), 'hex') FROM ($build) b(f)"), $hex,
			"Spark vector $name: built by $builder(..., '$format'), the same bytes");
		$count{spark_built}++;
	}
}

note 'compared: ' . join(', ', map { "$_=$count{$_}" } sort keys %count);
$node->stop;
done_testing();
