-- Part of bench/server/aggregates.sh: builds the data-sized filter of :rows
-- distinct values and measures its false-positive rate on 10^6 values it
-- does not hold.
CREATE TEMP TABLE fpp_filter AS SELECT bloom_agg(g::bigint) AS f FROM generate_series(1, :rows) g;
SELECT :rows AS distinct_values, i.nbits, i.nbits / 8 / 1048576.0 AS mbytes,
       round(i.nbits::numeric / :rows, 2) AS bits_per_value, i.nhashes,
       round(i.fpp::numeric, 5) AS fpp_from_fill
FROM fpp_filter, LATERAL bloom_info(f) i;
SELECT count(*) FILTER (WHERE bloom_contains(f, g::bigint)) / 1e6 AS measured_fpp,
       count(*) FILTER (WHERE bloom_contains(f, g::bigint)) / 1e6 <= 0.01 AS meets_0_01
FROM fpp_filter, generate_series(:rows + 1::bigint, :rows + 1000000::bigint) g;
SELECT count(*) FILTER (WHERE NOT bloom_contains(f, g::bigint)) AS false_negatives_in_sample
FROM fpp_filter, generate_series(1::bigint, :rows, 1000) g;
DROP TABLE fpp_filter;
