-- Extra data of the interleaved targets of bench/server/run.sh (after
-- setup.sql): a Spark-format filter of the 10^5 keys of small_int_1e5 and
-- a native classic filter of exactly its bits and hash functions (the same
-- size and rate), probed by the same scan.
\set ON_ERROR_STOP on
INSERT INTO filters SELECT 'int_1e5_spark', bloom_agg(k, 100000, 0.01, 'spark') FROM small_int_1e5;
INSERT INTO filters
SELECT 'int_1e5_spark_native',
       bloom_add_all(bloom_empty_with((bloom_info(f)).nbits, (bloom_info(f)).nhashes),
                     (SELECT array_agg(k) FROM small_int_1e5))
FROM filters WHERE name = 'int_1e5_spark';
SELECT name, i.nbits, i.nhashes, pg_size_pretty(i.bytes::bigint) AS size, round(i.fill::numeric, 3) AS fill
FROM filters, LATERAL bloom_info(f) i WHERE name LIKE 'int_1e5_spark%' ORDER BY name;
