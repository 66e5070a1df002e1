-- multibloom aggregates: sized to the data, fixed size, union; parallel
CREATE TABLE mb_orders AS
SELECT g AS order_id, g % 3000 AS customer_id,
       (ARRAY['north','south','east','west','central'])[g % 5 + 1] AS region
FROM generate_series(1, 30000) g;
ANALYZE mb_orders;

-- sized to the data: each attribute for its own distinct values, the
-- verification filter for the distinct complete rows (3000 customers, 5
-- regions, 3000 distinct (customer, region) pairs)
SELECT nattrs, flags, rows, nbits, nhashes, inserted
FROM multibloom_info((SELECT multibloom_agg(customer_id, region) FROM mb_orders));
SELECT nbits = (SELECT ARRAY[a.nbits, b.nbits, c.nbits]
                FROM bloom_info(bloom_empty(3000, 0.01)) a,
                     bloom_info(bloom_empty(5, 0.01)) b,
                     bloom_info(bloom_empty(3000, 0.01)) c) AS parts_sized_like_bloom_empty
FROM multibloom_info((SELECT multibloom_agg(customer_id, region) FROM mb_orders));

-- every row is found
SELECT count(*) FILTER (WHERE multibloom_contains(f, customer_id, region)) = count(*) AS all_found
FROM mb_orders, (SELECT multibloom_agg(customer_id, region) AS f FROM mb_orders) s;

-- NULL attributes: counted in rows, kept out of the verification filter
SELECT rows, inserted
FROM multibloom_info((SELECT multibloom_agg(x, y)
                      FROM (VALUES (1, 'a'), (2, NULL), (NULL, 'c'), (NULL, NULL), (1, 'a')) v(x, y)));

-- no rows: an empty filter of the call's shape
SELECT nattrs, rows, nbits FROM multibloom_info((SELECT multibloom_agg(customer_id, region) FROM mb_orders WHERE false));
SELECT multibloom_agg_fixed(100, 0.01, customer_id, region) = multibloom_empty(2, 100, 0.01) AS fixed_empty
FROM mb_orders WHERE false;
SELECT multibloom_union_agg(f) IS NULL AS union_of_nothing FROM (SELECT NULL::multibloom AS f) s;

-- the fixed-size aggregate has multibloom_empty's shape and
-- multibloom_add's bits, so partitions unite
SELECT multibloom_agg_fixed(30000, 0.01, customer_id, region)
       = (SELECT multibloom_union_agg(f)
          FROM (SELECT multibloom_agg_fixed(30000, 0.01, customer_id, region) AS f
                FROM mb_orders GROUP BY order_id % 7) p) AS partitions_unite
FROM mb_orders;
SELECT multibloom_agg_fixed(10, 0.1, x, y)
       = multibloom_add(multibloom_add(multibloom_empty(2, 10, 0.1), 1, 'a'), 2, 'b') AS agg_equals_add
FROM (VALUES (1, 'a'), (2, 'b')) v(x, y);
-- multibloom_agg_sized, its name in version 1.0, is a deprecated alias
SELECT multibloom_agg_sized(30000, 0.01, customer_id, region)
       = multibloom_agg_fixed(30000, 0.01, customer_id, region) AS deprecated_name_same
FROM mb_orders;
-- a bigint and a float8 value first are three attributes for
-- multibloom_agg, never a capacity and an fpp
SELECT nattrs, flags FROM multibloom_info((SELECT multibloom_agg(b, d, t)
                                         FROM (VALUES (10::bigint, 0.5::float8, 'x')) v(b, d, t)));

-- group by: one filter per group
SELECT region, multibloom_contains(multibloom_agg(customer_id, region), 5, 'north') AS has_5_north
FROM mb_orders GROUP BY region ORDER BY region;

-- parallel plans give the serial bits
CREATE TEMP TABLE mb_serial AS
SELECT multibloom_agg(customer_id, region) AS auto,
       multibloom_agg_fixed(30000, 0.01, customer_id, region) AS fixed,
       multibloom_union_agg(multibloom_add(multibloom_empty(2, 100), customer_id % 10, region)) AS united
FROM mb_orders;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
-- partial states go through serial, deserial and combine even when the
-- leader ends up running every part of the plan
EXPLAIN (COSTS OFF) CREATE TEMP TABLE mb_parallel AS
SELECT multibloom_agg(customer_id, region) AS auto,
       multibloom_agg_fixed(30000, 0.01, customer_id, region) AS fixed,
       multibloom_union_agg(multibloom_add(multibloom_empty(2, 100), customer_id % 10, region)) AS united
FROM mb_orders;
CREATE TEMP TABLE mb_parallel AS
SELECT multibloom_agg(customer_id, region) AS auto,
       multibloom_agg_fixed(30000, 0.01, customer_id, region) AS fixed,
       multibloom_union_agg(multibloom_add(multibloom_empty(2, 100), customer_id % 10, region)) AS united
FROM mb_orders;
-- over no rows too (a condition the planner cannot estimate, so that it
-- still plans partial aggregates): the data-sized filter of the two attributes
EXPLAIN (COSTS OFF) SELECT multibloom_agg(customer_id, region) FROM mb_orders WHERE customer_id + 0 < 0;
CREATE TEMP TABLE mb_parallel_none AS
SELECT multibloom_agg(customer_id, region) AS auto FROM mb_orders WHERE customer_id + 0 < 0;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
SELECT s.auto = p.auto AS auto_same, s.auto::bytea = p.auto::bytea AS auto_bytes_same,
       s.fixed = p.fixed AS fixed_same, s.fixed::bytea = p.fixed::bytea AS fixed_bytes_same,
       s.united = p.united AS united_same
FROM mb_serial s, mb_parallel p;
SELECT (multibloom_info(auto)).nattrs,
       auto::bytea = (SELECT multibloom_agg(customer_id, region) FROM mb_orders WHERE customer_id < 0)::bytea AS serial_bytes
FROM mb_parallel_none;

-- a small work_mem makes the collector spill (30,000 distinct rows of 32
-- bytes); the result is the same
CREATE TEMP TABLE mb_three AS SELECT multibloom_agg(order_id, customer_id, region) AS f FROM mb_orders;
SET work_mem = '64kB';
SELECT (SELECT multibloom_agg(order_id, customer_id, region) FROM mb_orders) = f AS spilled_equals_in_memory
FROM mb_three;
RESET work_mem;

-- composite-key semijoin: prune orders by a filter of (customer_id, region)
CREATE TABLE mb_customers AS
SELECT c AS customer_id, (ARRAY['north','south','east','west','central'])[c % 5 + 1] AS region
FROM generate_series(0, 2999, 3) c;
SELECT count(*) AS exact_matches
FROM mb_orders o WHERE EXISTS (SELECT 1 FROM mb_customers c
                               WHERE c.customer_id = o.customer_id AND c.region = o.region);
SELECT count(*) >= 10000 AND count(*) < 10000 + 200 AS prefilter_keeps_matches_and_few_others
FROM mb_orders o, (SELECT multibloom_agg(customer_id, region) AS f FROM mb_customers) k
WHERE multibloom_contains(k.f, o.customer_id, o.region);

DROP TABLE mb_orders, mb_customers;
