# postgres_fdw with the extension in a schema other than public.  A call
# ships only if the remote server has the function under the same name, and
# postgres_fdw names it with its local schema, so both servers install the
# extension in the same schema (here bf): then bloom_contains, the
# operators, multibloom_contains and bloom_agg ship as they do from public,
# whether the local query names the schema or finds it on its search_path.
# A remote server with the extension in another schema cannot run them.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomFdw;

my %remote;
for my $name ('remote', 'elsewhere')
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->start;
	# the same table on both; the extension in bf, or in public on "elsewhere"
	my $schema = $name eq 'remote' ? 'bf' : 'public';
	$node->safe_psql('postgres', qq{
		CREATE SCHEMA IF NOT EXISTS $schema;
		CREATE EXTENSION bloomfilter SCHEMA $schema;
		CREATE TABLE orders (id int PRIMARY KEY, customer_id int, region text);
		INSERT INTO orders
			SELECT g, g % 2000, (ARRAY['north', 'south', 'east', 'west'])[g % 4 + 1]
			FROM generate_series(1, 20000) g;
		ANALYZE orders;
	});
	$remote{$name} = $node;
}

my $local = PostgreSQL::Test::Cluster->new('local');
$local->init;
$local->start;
$local->safe_psql('postgres', q{
	CREATE SCHEMA bf;
	CREATE EXTENSION bloomfilter SCHEMA bf;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote{remote})
  . foreign_server_sql('elsewhere', $remote{elsewhere}) . q{
	CREATE FOREIGN TABLE remote_orders (id int, customer_id int, region text)
		SERVER remote OPTIONS (table_name 'orders');
	CREATE FOREIGN TABLE elsewhere_orders (id int, customer_id int, region text)
		SERVER elsewhere OPTIONS (table_name 'orders');
	CREATE TABLE customers (id int PRIMARY KEY, region text);
	INSERT INTO customers
		SELECT g, (ARRAY['north', 'south', 'east', 'west'])[g % 4 + 1] FROM generate_series(0, 1999) g;
	ANALYZE customers;
});
is($local->safe_psql('postgres',
		q{SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
		  WHERE e.extname = 'bloomfilter'}),
	'bf', 'the local server has the extension in bf');

# Schema-qualified calls, bf off the search_path.
my $filter = q{(SELECT bf.bloom_agg(id) FROM customers WHERE id % 50 = 0)};
my $exact = q{customer_id IN (SELECT id FROM customers WHERE id % 50 = 0)};
my $prefilter = "SELECT id FROM remote_orders o WHERE bf.bloom_contains($filter, o.customer_id)";
like(remote_sql($local, $prefilter),
	qr/WHERE \(bf\.bloom_contains\(\$1::bf\.bloom, customer_id\)\)/,
	'bloom_contains ships, named in bf, with the filter as parameter $1');
check_prefilter($local, table => 'remote_orders', rows => 20000,
	prefilter => $prefilter, exact => $exact, what => 'schema bf');
like(remote_sql($local, "SELECT id FROM remote_orders o WHERE $filter OPERATOR(bf.@>) o.customer_id"),
	qr/\(\$1::bf\.bloom OPERATOR\(bf\.\@>\) customer_id\)/, 'operator @> ships, named in bf');

my $pairs = q{(SELECT bf.multibloom_agg(id, region) FROM customers WHERE id % 50 = 0)};
my $mb_prefilter = "SELECT id FROM remote_orders o WHERE bf.multibloom_contains($pairs, o.customer_id, o.region)";
like(remote_sql($local, $mb_prefilter),
	qr/WHERE \(bf\.multibloom_contains\(\$1::bf\.multibloom, customer_id, region\)\)/,
	'multibloom_contains ships, named in bf');
check_prefilter($local, table => 'remote_orders', rows => 20000, prefilter => $mb_prefilter,
	exact => q{(customer_id, region) IN (SELECT id, region FROM customers WHERE id % 50 = 0)},
	what => 'schema bf, composite key');

like(remote_sql($local, 'SELECT bf.bloom_agg(customer_id, 5000, 0.01) FROM remote_orders'),
	qr/Remote SQL: SELECT bf\.bloom_agg\(customer_id, 5000::bigint, 0\.01::double precision\) FROM public\.orders/,
	'bloom_agg is pushed down, named in bf');
is($local->safe_psql('postgres', q{
		SELECT (SELECT bf.bloom_agg(customer_id, 5000, 0.01) FROM remote_orders)
		       OPERATOR(bf.=) bf.bloom_add_all(bf.bloom_empty(5000, 0.01), array(SELECT g % 2000 FROM generate_series(1, 20000) g))}),
	't', 'the filter built remotely has the bits of one built locally');

# The same through the search_path of the local session.
$local->safe_psql('postgres', 'ALTER DATABASE postgres SET search_path = public, bf');
like(remote_sql($local, "SELECT id FROM remote_orders o WHERE bloom_contains($filter, o.customer_id)"),
	qr/WHERE \(bf\.bloom_contains\(\$1::bf\.bloom, customer_id\)\)/,
	'found through the search_path: bloom_contains still ships, named in bf');
like(remote_sql($local, 'SELECT id FROM remote_orders o WHERE o.customer_id <@ bloom_add(bloom_empty(10), 7)'),
	qr/\(customer_id OPERATOR\(bf\.<\@\) '[A-Za-z0-9+\/=]+'::bf\.bloom\)/,
	'found through the search_path: operator <@ ships with a literal filter');

# A remote server with the extension in public: the call names bf there,
# which does not exist, so the query fails rather than answer wrongly.
like(remote_sql($local, "SELECT id FROM elsewhere_orders o WHERE bloom_contains($filter, o.customer_id)"),
	qr/bf\.bloom_contains/, 'another remote schema: the call is shipped all the same');
my ($ret, $out, $err) = $local->psql('postgres',
	"SELECT count(*) FROM elsewhere_orders o WHERE bloom_contains($filter, o.customer_id)");
isnt($ret, 0, 'another remote schema: the query fails');
like($err, qr/schema "bf" does not exist|bf\.bloom/, '... because the remote server has no bf');

done_testing();
