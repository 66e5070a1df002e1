-- scripts/demo.sql: the demonstration that scripts/demo runs.
--
-- psql variables: host, local_port, remote_port (two clusters, each with an
-- empty database "demo").  The script prints the report itself: setup runs
-- with output off, then each section prints a few lines (tuples only).
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

-- ==== Setup, remote cluster: 1.5 million orders of 100,000 customers
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
FROM generate_series(1, 1500000) g;
VACUUM ANALYZE orders;
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

-- measure(query): rows the foreign scan received, the query's single value,
-- its wall time (a run of its own, outside EXPLAIN) and the Remote SQL.
CREATE FUNCTION measure(q text, OUT shipped bigint, OUT result text,
                        OUT ms numeric, OUT remote_sql text)
LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
    t0   timestamptz;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) ' || q INTO plan;
    SELECT sum((n->>'Actual Rows')::bigint * (n->>'Actual Loops')::bigint),
           min(n->>'Remote SQL')
      INTO shipped, remote_sql
      FROM jsonb_path_query(plan, 'strict $.**?(@."Node Type" == "Foreign Scan")') n;
    t0 := clock_timestamp();
    EXECUTE q INTO result;
    ms := round(extract(epoch FROM clock_timestamp() - t0) * 1000);
END $$;

-- explain_foreign_scan(query): the foreign scan's lines of EXPLAIN (ANALYZE, VERBOSE).
CREATE FUNCTION explain_foreign_scan(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) ' || q LOOP
        IF line ~ 'Foreign Scan|Remote SQL' THEN
            line := regexp_replace(line, '^\s*(->\s*)?', '');
            RETURN NEXT CASE WHEN line ~ '^Remote SQL' THEN '  ' || line ELSE line END;
        END IF;
    END LOOP;
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

-- ==== 2. Semijoin prefilter: the remote server drops the orders of other regions
\set q_plain 'SELECT format(''%s orders, %s'', to_char(count(*), ''FM999,999,999''), to_char(sum(o.amount), ''FM999,999,999,999.00'')) FROM customers c JOIN remote_orders o ON o.customer_id = c.id WHERE c.region = ''EU'''
\set q_bloom :q_plain ' AND bloom_contains((SELECT filter FROM region_filter WHERE region = ''EU''), o.customer_id)'
\o /dev/null
CREATE TEMP TABLE runs AS
SELECT 'without filter' AS run, m.* FROM measure(:'q_plain') m
UNION ALL
SELECT 'with filter', m.* FROM measure(:'q_bloom') m;
\o

\echo
\echo '2. EU orders: local customers JOIN remote_orders (1,500,000 rows, postgres_fdw)'
SELECT format('   %-15s %13s  %-32s %9s', '', 'rows shipped', 'result', 'time');
SELECT format('   %-15s %13s  %-32s %6s ms', run, to_char(shipped, 'FM9,999,999,999'), result,
              to_char(ms, 'FM999,999'))
FROM runs;
SELECT CASE WHEN b.remote_sql ~ 'bloom_contains' AND a.result = b.result
            THEN format('   same result, %s%% fewer rows shipped (the filter: %s bytes of text, sent once), %sx the speed',
                        round(100 - 100.0 * b.shipped / a.shipped, 1),
                        (SELECT to_char(octet_length(filter::text), 'FM999,999,999')
                         FROM region_filter WHERE region = 'EU'),
                        round(a.ms / greatest(b.ms, 1), 1))
            ELSE '   WARNING: the probe did not run on the remote server or the results differ'
       END
FROM runs a, runs b WHERE a.run = 'without filter' AND b.run = 'with filter';
\echo '   EXPLAIN (ANALYZE, VERBOSE) with the filter, foreign scan:'
SELECT '     ' || l FROM explain_foreign_scan(:'q_bloom') l;

-- ==== 3. Materialized summary: one filter per daily partition, skipping partitions
-- Eight weeks of the orders, copied into a local table partitioned by day.
-- Each day's filter is built with a fixed capacity and fpp, so that day
-- filters can be united into week filters (bloom_union_agg) that still
-- answer with a low false-positive rate.
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

-- the summary: one filter per partition, aggregated partition by partition
CREATE TABLE order_summary AS
SELECT p.partition, to_date(right(p.partition::text, 8), 'YYYYMMDD') AS day, p.filter
FROM bloom_partition_filters('orders_daily', 'customer_id', 30000, 0.01) p;
-- rolled up: one filter per week
CREATE TABLE order_summary_weekly AS
SELECT date_trunc('week', day)::date AS week, bloom_union_agg(filter) AS filter
FROM order_summary GROUP BY 1;

-- orders_of(key, use_summary): count and total of a customer's orders, read
-- from every partition, or only from those whose week and day filters can
-- hold the key.  Returns the result, partitions read, and the time.
CREATE FUNCTION orders_of(k integer, use_summary boolean,
                          OUT result text, OUT partitions_read int, OUT ms numeric)
LANGUAGE plpgsql AS $$
DECLARE
    parts regclass[];
    q     text;
    t0    timestamptz := clock_timestamp();
BEGIN
    IF use_summary THEN
        SELECT coalesce(array_agg(d.partition ORDER BY d.day), '{}') INTO parts
        FROM order_summary_weekly w
        JOIN order_summary d ON date_trunc('week', d.day)::date = w.week
        WHERE w.filter @> k AND d.filter @> k;
    ELSE
        SELECT array_agg(partition ORDER BY day) INTO parts FROM order_summary;
    END IF;
    partitions_read := cardinality(parts);
    IF partitions_read = 0 THEN
        result := '0 order(s), 0.00';
    ELSE
        SELECT 'SELECT format(''%s order(s), %s'', count(*), coalesce(sum(amount), 0.00)) FROM ('
               || string_agg(format('SELECT amount FROM %s WHERE customer_id = %s', p, k), ' UNION ALL ')
               || ') s'
          INTO q FROM unnest(parts) p;
        EXECUTE q INTO result;
    END IF;
    ms := round(extract(epoch FROM clock_timestamp() - t0) * 1000, 1);
END $$;

-- a few keys: two customers with orders, and an id that no customer has
CREATE TEMP TABLE lookups AS
SELECT k, full_scan.result AS full_result, full_scan.ms AS full_ms,
       skip.result AS skip_result, skip.partitions_read, skip.ms AS skip_ms,
       (SELECT count(*) FROM order_summary) AS partitions
FROM unnest(ARRAY[42, 31337, 250000]) k,
     LATERAL orders_of(k, false) full_scan,
     LATERAL orders_of(k, true) skip;
\o

\echo
\echo '3. Summary: one filter per daily partition of orders_daily (bloom_partition_filters,'
\echo '   bloom_agg(customer_id, 30000, 0.01)), rolled up per week with bloom_union_agg'
SELECT format('   %s day filters of %s bytes (%s total), %s ids per day on average, estimated fpp%s',
              count(*), min(i.bytes), pg_size_pretty(sum(i.bytes)),
              round(avg(i.inserted)), to_char(avg(i.fpp), '9.9EEEE'))
FROM order_summary s, bloom_info(s.filter) i;
SELECT format('   %s week filters: fill %s, estimated fpp %s on average',
              count(*), round(avg(i.fill)::numeric, 3), round(avg(i.fpp)::numeric, 4))
FROM order_summary_weekly s, bloom_info(s.filter) i;
SELECT format('   %-16s %-26s %-20s %s', 'customer', 'orders, total', 'partitions read', 'time, all partitions -> summary');
SELECT format('   %-16s %-26s %-20s %s ms -> %s ms%s',
              k, skip_result,
              format('%s of %s (%s skipped)', partitions_read, partitions, partitions - partitions_read),
              full_ms, skip_ms,
              CASE WHEN skip_result = full_result THEN '' ELSE '  WARNING: results differ' END)
FROM lookups ORDER BY k;
SELECT CASE WHEN bool_and(skip_result = full_result)
            THEN format('   same results as reading every partition; %s of %s partition reads skipped',
                        sum(partitions - partitions_read), sum(partitions))
            ELSE '   WARNING: a summary lookup differs from the full read' END
FROM lookups;
