-- The matrix layout's groups of unequal size, its two tie rules ('emptier',
-- the default, and 'first', which reproduces Table 1 of the M-BMBF paper),
-- and its count estimate (doc/matrix.md).

-- 8 rows over 3 locators: groups of 3, 3 and 2 rows
SELECT "rows", locators, nbits, flags FROM bloom_info(bloom_empty_matrix(8, 1024, 5, 3));
SELECT bloom_matrix_ties(bloom_empty_matrix(8, 1024, 5, 3)) AS default_rule,
       bloom_matrix_ties(bloom_empty_matrix(8, 1024, 5, 3, 'emptier')) AS emptier,
       bloom_matrix_ties(bloom_empty_matrix(8, 1024, 5, 3, 'first')) AS first,
       (bloom_info(bloom_empty_matrix(8, 1024, 5, 3, 'first'))).flags AS first_flags,
       bloom_empty_matrix(8, 1024, 5, 3, 'emptier') = bloom_empty_matrix(8, 1024, 5, 3) AS emptier_is_default;
-- every row takes values, none is lost, and bloom_fpp weighs groups by size
CREATE TEMP TABLE uneven AS
SELECT bloom_add_all(bloom_empty_matrix(8, 4096, 7, 3), array(SELECT generate_series(1, 3000))) AS f;
SELECT (SELECT count(*) FROM unnest(bloom_matrix_row_bits(f)) b WHERE b > 0) AS rows_used,
       (SELECT count(*) FROM generate_series(1, 3000) g WHERE NOT f @> g) AS missed,
       abs(bloom_fpp(f) / (SELECT count(*) FILTER (WHERE f @> g) / 2e5
                           FROM generate_series(1000001, 1200000) g) - 1) < 0.15 AS fpp_estimate_ok
FROM uneven;

-- 'first': ties go to the first candidate, so group 0 (rows 1..3) alone
-- takes values while its rows have room; 'emptier' spreads them over all rows
SELECT (bloom_matrix_row_bits(f))[4:8] AS first_later_groups,
       (SELECT count(*) FROM unnest(bloom_matrix_row_bits(e)) b WHERE b > 0) AS emptier_rows_used
FROM (SELECT bloom_add_all(bloom_empty_matrix(8, 4096, 7, 3, 'first'), array(SELECT generate_series(1, 200))) AS f,
             bloom_add_all(bloom_empty_matrix(8, 4096, 7, 3), array(SELECT generate_series(1, 200))) AS e) s;

-- The paper's Table 1 (k = 10, rows of 131072 bits, r = 8): with 'first'
-- ties the matrix is full near r m ln 2 / k = 72,680 values for every s
-- (paper: 71,638 at s = 2, 72,825 at s = 8); with 'emptier' ties it holds
-- more, the more so as s grows
CREATE TEMP TABLE table1 AS
SELECT s, rule, (bloom_info(bloom_add_all(bloom_empty_matrix(8, 131072, 10, s, rule),
                                          array(SELECT generate_series(1, 130000))))).full_at
FROM (VALUES (2), (3), (8)) v(s), (VALUES ('first'), ('emptier')) r(rule);
SELECT s, rule, full_at BETWEEN 70000 AND 75000 AS near_72680, full_at > 80000 AS above_80000
FROM table1 ORDER BY s, rule;

-- At equal bits and values (50,000 values, under full for both) the
-- 'emptier' filter answers wrongly far less often: 'first' has filled group
-- 0's rows to half while group 1's are nearly empty
CREATE TEMP TABLE equal_load AS
SELECT rule, bloom_add_all(bloom_empty_matrix(8, 131072, 10, 2, rule), array(SELECT generate_series(1, 50000))) AS f
FROM (VALUES ('first'), ('emptier')) r(rule);
SELECT e.fp * 10 < f.fp AS emptier_ten_times_better, f.fp > 0 AS first_has_false_positives
FROM (SELECT count(*) AS fp FROM equal_load, generate_series(1000001, 1300000) g
      WHERE rule = 'emptier' AND f @> g) e,
     (SELECT count(*) AS fp FROM equal_load, generate_series(1000001, 1300000) g
      WHERE rule = 'first' AND f @> g) f;

-- the rule is part of the shape: kept by text and binary I/O, compared by
-- =, and filters of different rules are not united
SELECT bloom_matrix_ties(bloom_in(bloom_out(f)::cstring)) AS text_rule,
       bloom_matrix_ties((f::bytea)::bloom) AS binary_rule,
       bloom_in(bloom_out(f)::cstring) = f AS text_round_trip
FROM equal_load WHERE rule = 'first';
SELECT bloom_empty_matrix(8, 1024, 5, 2, 'first') = bloom_empty_matrix(8, 1024, 5, 2) AS same;
SELECT bloom_empty_matrix(8, 1024, 5, 2, 'first') | bloom_empty_matrix(8, 1024, 5, 2);
SELECT bloom_empty_matrix(8, 1024, 5, 2) & bloom_empty_matrix(8, 1024, 5, 2, 'first');
SELECT bloom_matrix_ties(bloom_empty_matrix(8, 1024, 5, 2, 'first') | bloom_empty_matrix(8, 1024, 5, 2, 'first')) AS union_rule;

-- errors
SELECT bloom_empty_matrix(8, 1024, 5, 2, 'random');
SELECT bloom_empty_matrix(8, 1024, 5, 2, NULL) IS NULL AS strict;
SELECT bloom_empty_matrix(7, 1024, 5, 8, 'first');
SELECT bloom_matrix_ties(bloom_empty(100));
-- the rule's flag (0x02, header byte 3) belongs to the matrix layout only
SELECT overlay(bloom_empty(100)::bytea placing '\x02'::bytea from 4)::bloom;
SELECT bloom_matrix_ties(overlay(bloom_empty_matrix(2, 64, 2, 2)::bytea placing '\x02'::bytea from 4)::bloom) AS flag_read;

-- bloom_cardinality follows the insertion rule: within 3% at capacity and
-- at twice capacity for the default shape (the classic formula read 0.875,
-- 0.882 and 0.870 of the truth at capacity for 10^3, 10^5 and 10^6 values)
SELECT n, over, abs(bloom_cardinality(f) / (n * over) - 1) < 0.03 AS within_3pct
FROM (VALUES (1000), (100000), (1000000)) v(n), (VALUES (1), (2)) o(over),
     LATERAL (SELECT bloom_agg(g, n, 0.01, 'matrix') AS f FROM generate_series(1, n * over) g) a
ORDER BY n, over;
-- and for the paper's shapes, both rules, at 30,000 and 100,000 values
-- (under and past full)
SELECT s, rule, n, abs(bloom_cardinality(f) / n - 1) < 0.03 AS within_3pct
FROM (VALUES (2), (5), (8)) v(s), (VALUES ('first'), ('emptier')) r(rule),
     (VALUES (30000), (100000)) c(n),
     LATERAL (SELECT bloom_add_all(bloom_empty_matrix(8, 131072, 10, s, rule),
                                   array(SELECT generate_series(1, n))) AS f) a
ORDER BY s, rule, n;
