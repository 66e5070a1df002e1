-- scripts/demo.sql: the demonstration that scripts/demo runs.
--
-- psql variables: host, local_port, remote_port (two clusters, each with an
-- empty database "demo"; the local one loads the library at start,
-- shared_preload_libraries = 'bloomfilter', which the planner's automatic
-- prefilter and summary pruning need).  The script prints the report
-- itself: setup runs with output off, then each section prints a few lines
-- (tuples only).
--
-- Sections are independent and run in order; each one begins with \connect
-- to the cluster it needs.  To add one, append it at the end in the same
-- shape: a "-- ==== N. title" comment, setup between \o /dev/null and \o,
-- then \echo the title and SELECT format(...) the lines of the report.

\set ON_ERROR_STOP on
\set QUIET on
\pset tuples_only on
\pset format unaligned
\pset footer off

-- ==== Setup, remote cluster: a million orders of 100,000 customers
\connect demo postgres :host :remote_port
\o /dev/null
CREATE EXTENSION bloomfilter;
SELECT setseed(0.2);
CREATE TABLE orders (
    id          bigint,
    customer_id integer NOT NULL,
    amount      numeric(10,2) NOT NULL,
    ordered_at  date NOT NULL
);
INSERT INTO orders
SELECT g, 1 + floor(random() * 100000)::int, round((5 + random() * 495)::numeric, 2),
       date '2024-01-01' + (g % 366)::int
FROM generate_series(1, 1000000) g;
ANALYZE orders;
\o

-- ==== Setup, local cluster: customers, and the remote orders through postgres_fdw
\connect demo postgres :host :local_port
\o /dev/null
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
SELECT setseed(0.1);
CREATE TABLE customers (
    id     integer PRIMARY KEY,
    region text NOT NULL,
    name   text NOT NULL
);
INSERT INTO customers
SELECT g, (ARRAY['EU', 'NA', 'LATAM', 'APAC', 'MEA', 'ANZ', 'NORDICS', 'UK'])[1 + floor(random() * 8)::int],
       'customer ' || g
FROM generate_series(1, 100000) g;
ANALYZE customers;

-- "extensions" lets postgres_fdw send bloomfilter's functions, operators
-- and the bloom type to the remote server instead of filtering locally.
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host :'host', port :'remote_port', dbname 'demo',
             extensions 'bloomfilter', use_remote_estimate 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote OPTIONS (user 'postgres');
CREATE FOREIGN TABLE remote_orders (
    id          bigint,
    customer_id integer,
    amount      numeric(10,2),
    ordered_at  date
) SERVER remote OPTIONS (table_name 'orders');
-- the planner's prefilter weighs a filter by the foreign table's statistics
-- (of the join's columns: postgres_fdw reads every row to sample them)
ANALYZE remote_orders (customer_id, ordered_at);

-- measure(query): from one run, under the session's
-- bloomfilter.semijoin_prefilter, the query's single value, the rows the
-- foreign scan received, the run's execution time (EXPLAIN ANALYZE without
-- per-node timing) and the Remote SQL.
CREATE FUNCTION measure(q text, OUT shipped bigint, OUT result text,
                        OUT ms numeric, OUT remote_sql text)
LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, TIMING OFF, FORMAT JSON) '
            'CREATE TEMP TABLE measured (result) AS ' || q INTO plan;
    SELECT sum((n->>'Actual Rows')::bigint * (n->>'Actual Loops')::bigint),
           min(n->>'Remote SQL')
      INTO shipped, remote_sql
      FROM jsonb_path_query(plan, 'strict $.**?(@."Node Type" == "Foreign Scan")') n;
    ms := round((plan->0->>'Execution Time')::numeric);
    SELECT m.result INTO result FROM measured m;
    DROP TABLE measured;
END $$;
\o

SELECT format('bloomfilter %s, %s; clusters on %s:%s (local) and :%s (remote)',
              extversion, split_part(version(), ' on ', 1), :'host', :'local_port', :'remote_port')
FROM pg_extension WHERE extname = 'bloomfilter';

-- ==== 1. A filter of one region's customer ids
\o /dev/null
CREATE TABLE region_filter AS
SELECT region, bloom_agg(id) AS filter
FROM customers WHERE region = 'EU' GROUP BY region;
\o

\echo
\echo '1. bloom_agg(id) over the EU customers (sized to their count, fpp <= 0.01)'
SELECT format('   %s ids in %s bytes: %s layout, %s bits, %s hashes, fill %s, estimated fpp %s',
              to_char(i.inserted, 'FM999,999,999'), to_char(i.bytes, 'FM999,999,999'),
              i.layout, to_char(i.nbits, 'FM999,999,999,999'), i.nhashes,
              round(i.fill::numeric, 3), round(i.fpp::numeric, 4))
FROM region_filter f, bloom_info(f.filter) i;
SELECT format('   probe: filter @> %s (an EU id) is %s; filter @> %s (not EU) is %s',
              e.id, f.filter @> e.id, o.id, f.filter @> o.id)
FROM region_filter f,
     (SELECT min(id) AS id FROM customers WHERE region = 'EU') e,
     (SELECT min(id) AS id FROM customers WHERE region <> 'EU') o;
SELECT format('   all ids probed: %s of %s EU ids found; %s of %s other ids falsely found (%s%%)',
              to_char(found, 'FM999,999,999'), to_char(members, 'FM999,999,999'),
              to_char(false_pos, 'FM999,999,999'), to_char(others, 'FM999,999,999'),
              round(100.0 * false_pos / others, 2))
FROM (SELECT count(*) FILTER (WHERE c.region = 'EU') AS members,
             count(*) FILTER (WHERE c.region = 'EU' AND f.filter @> c.id) AS found,
             count(*) FILTER (WHERE c.region <> 'EU') AS others,
             count(*) FILTER (WHERE c.region <> 'EU' AND f.filter @> c.id) AS false_pos
      FROM customers c, region_filter f) s;

-- ==== 2. Automatic semijoin prefilter on a composite key
-- 20,000 (customer, day) visits; the orders placed by a customer on a day of
-- a visit.  Each column alone is common among the orders (a fifth of the
-- customers, every day), only the pairs are selective: the planner ships one
-- filter of the pairs, built once, and the remote server drops the rest.
-- The query is plain SQL; bloomfilter.semijoin_prefilter turns it off.
\connect demo postgres :host :local_port
\o /dev/null
SELECT setseed(0.3);
CREATE TABLE visits (customer_id integer NOT NULL, day date NOT NULL);
INSERT INTO visits
SELECT DISTINCT 1 + floor(random() * 100000)::int, date '2024-01-01' + floor(random() * 366)::int
FROM generate_series(1, 20000);
ANALYZE visits;
\set q_pairs 'SELECT format(''%s orders, %s'', to_char(count(*), ''FM999,999,999''), to_char(sum(o.amount), ''FM999,999,999,999.00'')) FROM visits v JOIN remote_orders o ON o.customer_id = v.customer_id AND o.ordered_at = v.day'
SET bloomfilter.semijoin_prefilter = off;
CREATE TEMP TABLE runs AS SELECT 'without filter' AS run, m.* FROM measure(:'q_pairs') m;
SET bloomfilter.semijoin_prefilter = on;
INSERT INTO runs SELECT 'with filter', m.* FROM measure(:'q_pairs') m;
\o

\echo
\echo '2. Orders on the days of 20,000 visits: visits JOIN remote_orders ON customer_id AND day'
\echo '   (plain SQL; the planner adds the filter of the (customer, day) pairs by itself)'
SELECT format('   %-15s %13s  %-30s %9s', '', 'rows shipped', 'result', 'time');
SELECT format('   %-15s %13s  %-30s %6s ms', run, to_char(shipped, 'FM9,999,999,999'), result,
              to_char(ms, 'FM999,999'))
FROM runs;
SELECT CASE WHEN b.remote_sql ~ 'bloom_contains_tuple' AND a.result = b.result
            THEN format('   same result, %s%% fewer rows shipped, %sx the speed',
                        round(100 - 100.0 * b.shipped / a.shipped, 1),
                        round(a.ms / greatest(b.ms, 1), 1))
            ELSE '   WARNING: no composite filter ran on the remote server, or the results differ'
       END
FROM runs a, runs b WHERE a.run = 'without filter' AND b.run = 'with filter';
SELECT format('   EXPLAIN (ANALYZE, VERBOSE) with the filter: Foreign Scan on remote_orders (actual rows=%s)', shipped)
       || E'\n     Remote SQL: ' || remote_sql
FROM runs WHERE run = 'with filter';

-- ==== 3. Managed summary: partitions that cannot hold a key are skipped
-- Eight weeks of the orders, copied into a local table partitioned by day.
-- bloom_summary_create keeps one filter of customer_id per partition, and a
-- trigger keeps it current; a plain WHERE customer_id = ... then reads only
-- the partitions whose filter may hold the key, decided at executor start.
\connect demo postgres :host :local_port
\o /dev/null
CREATE TABLE orders_daily (
    id          bigint,
    customer_id integer NOT NULL,
    amount      numeric(10,2) NOT NULL,
    ordered_at  date NOT NULL
) PARTITION BY RANGE (ordered_at);
DO $$
DECLARE d date;
BEGIN
    FOR d IN SELECT generate_series(date '2024-01-01', date '2024-02-25', interval '1 day') LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF orders_daily FOR VALUES FROM (%L) TO (%L)',
                       'orders_' || to_char(d, 'YYYYMMDD'), d, d + 1);
    END LOOP;
END $$;
INSERT INTO orders_daily SELECT * FROM remote_orders WHERE ordered_at < date '2024-02-26';
ANALYZE orders_daily;
SELECT bloom_summary_create('orders_daily', 'customer_id', 10000, 0.01);
-- one backend per lookup, so the times compare the partitions read, not
-- the start of parallel workers
SET max_parallel_workers_per_gather = 0;

-- lookup(key, prune): a customer's orders by plain SQL, with summary pruning
-- on or off: the result, EXPLAIN's "Partitions Skipped by Summary" and the
-- time of a run of its own.
CREATE FUNCTION lookup(k integer, prune boolean,
                       OUT result text, OUT skipped text, OUT ms numeric)
LANGUAGE plpgsql AS $$
DECLARE
    q    text := format('SELECT format(''%%s order(s), %%s'', count(*), coalesce(sum(amount), 0.00)) '
                        'FROM orders_daily WHERE customer_id = %s', k);
    line text;
    t0   timestamptz;
BEGIN
    PERFORM set_config('bloomfilter.enable_summary_pruning', prune::text, true);
    skipped := '0 of ' || (SELECT count(*) FROM pg_inherits WHERE inhparent = 'orders_daily'::regclass);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line ~ 'Partitions Skipped by Summary: ' THEN
            skipped := substring(line FROM 'Partitions Skipped by Summary: (.*)$');
        END IF;
    END LOOP;
    t0 := clock_timestamp();
    EXECUTE q INTO result;
    ms := round(extract(epoch FROM clock_timestamp() - t0) * 1000, 1);
END $$;

-- two customers with orders, and an id that no customer has
CREATE TEMP TABLE lookups AS
SELECT k, 'before' AS run, full_scan.result AS full_result, full_scan.ms AS full_ms,
       skip.result AS skip_result, skip.skipped, skip.ms AS skip_ms
FROM unnest(ARRAY[42, 31337, 250000]) k,
     LATERAL lookup(k, false) full_scan,
     LATERAL lookup(k, true) skip;
-- a writer adds an order of customer 250000: the trigger adds the key to its
-- partition's filter, and the next lookup reads that partition
INSERT INTO orders_daily VALUES (9999999, 250000, 12.34, date '2024-02-14');
INSERT INTO lookups
SELECT 250000, 'after', full_scan.result, full_scan.ms, skip.result, skip.skipped, skip.ms
FROM lookup(250000, false) full_scan, lookup(250000, true) skip;
\o

\echo
\echo '3. Managed summary: bloom_summary_create(''orders_daily'', ''customer_id'', 10000, 0.01)'
SELECT format('   %s daily partitions, %s rows; the summary: %s filters, %s in all',
              partitions, (SELECT to_char(count(*), 'FM999,999,999') FROM orders_daily),
              trusted_partitions, pg_size_pretty(bytes))
FROM bloom_summaries WHERE parent = 'orders_daily'::regclass;
\echo '   SELECT count(*), sum(amount) FROM orders_daily WHERE customer_id = <customer>'
SELECT format('   %-24s %-20s %-30s %s', 'customer', 'orders, total', 'Partitions Skipped by Summary', 'time, pruning off -> on');
SELECT format('   %-24s %-20s %-30s %s ms -> %s ms%s',
              k || CASE run WHEN 'after' THEN ', after an INSERT' ELSE '' END, skip_result, skipped,
              full_ms, skip_ms,
              CASE WHEN skip_result = full_result THEN '' ELSE '  WARNING: results differ' END)
FROM lookups ORDER BY run DESC, k;
SELECT CASE WHEN bool_and(skip_result = full_result)
            THEN '   same results as reading every partition (EXPLAIN shows each skipped scan as Custom Scan (BloomSummarySkipped))'
            ELSE '   WARNING: a pruned lookup differs from the full read' END
FROM lookups;

-- ==== 4. Filters of other systems: written for Guava, read as Parquet's
-- The bytes Guava 31.1 wrote for BloomFilter.create(Funnels.longFunnel(),
-- 100, 0.01) after put(1L), put(2L), put(3L) and writeTo (the vector of
-- sql/071_interop_guava.sql); and a filter of the EU customers as a
-- Parquet writer stores it in a file (header, then bitset), read back as a
-- reader takes it from the footer.
\connect demo postgres :host :local_port
\o /dev/null
CREATE TABLE guava_written (bytes bytea);
INSERT INTO guava_written VALUES ('\x01070000000f000001000001004000004000000000004000000000000000000000001000000000000000000002001000000000002400000001000000000000000000000000000001000000000000000400200000000000000002004000000000000000000000000000040000000000000004008000000000000000801000');
CREATE TABLE parquet_file_filter AS
SELECT bloom_export(bloom_agg(id, 20000, 0.01, 'parquet'), 'parquet_header') AS bytes
FROM customers WHERE region = 'EU';
\o

\echo
\echo '4. Filters of other systems (bloom_import / bloom_export)'
SELECT format('   Guava wrote %s bytes; bloom_import(bytes, ''guava'') @> 1, 2, 3, 4 (bigint): %s, %s, %s, %s',
              length(g.bytes), f @> 1::bigint, f @> 2::bigint, f @> 3::bigint, f @> 4::bigint)
FROM guava_written g, bloom_import(g.bytes, 'guava') f;
SELECT format('   built here, bloom_export(bloom_add_all(bloom_empty(100, 0.01, ''guava''), ''{1,2,3}''), ''guava''): %s',
              CASE WHEN bloom_export(bloom_add_all(bloom_empty(100, 0.01, 'guava'), ARRAY[1, 2, 3]::bigint[]), 'guava') = g.bytes
                   THEN 'the same bytes, for BloomFilter.readFrom'
                   ELSE 'WARNING: other bytes than Guava''s' END)
FROM guava_written g;
SELECT format('   for a Parquet file: bloom_export(bloom_agg(id, 20000, 0.01, ''parquet''), ''parquet_header''):')
UNION ALL
SELECT format('     %s bytes, a %s-byte Thrift BloomFilterHeader (%s...) and the split-block bitset',
              to_char(length(p.bytes), 'FM999,999'), length(p.bytes) - length(bloom_export(f, 'parquet')),
              encode(substr(p.bytes, 1, 8), 'hex'))
FROM parquet_file_filter p, bloom_import(p.bytes, 'parquet_header') f;
SELECT format('   read back from the footer, bloom_import(bytes, ''parquet_header''): %s of %s EU ids found, %s of %s others (%s%%)',
              to_char(count(*) FILTER (WHERE c.region = 'EU' AND f @> c.id), 'FM999,999'),
              to_char(count(*) FILTER (WHERE c.region = 'EU'), 'FM999,999'),
              to_char(count(*) FILTER (WHERE c.region <> 'EU' AND f @> c.id), 'FM999,999'),
              to_char(count(*) FILTER (WHERE c.region <> 'EU'), 'FM999,999'),
              round(100.0 * count(*) FILTER (WHERE c.region <> 'EU' AND f @> c.id)
                    / count(*) FILTER (WHERE c.region <> 'EU'), 2))
FROM customers c, parquet_file_filter p, bloom_import(p.bytes, 'parquet_header') f;
