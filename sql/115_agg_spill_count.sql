-- The data-sized bloom_agg counts its distinct values exactly also when
-- its collector spills sorted runs to temporary files (work_mem = 64kB:
-- 8,192 hashes in memory) and merges them: at the boundary between two
-- sizes, 54,653 distinct values take 2^19 bits and 54,654 take 2^20, so a
-- count off by one would change the filter.  The first half of the values
-- comes six times, scattered (the runs share values: the count drops the
-- duplicates across runs), the second half once, last (the last of them
-- are still in the buffer when the count merges it with the runs).
CREATE TABLE agg_spill_count AS
SELECT n, k FROM (
  SELECT n, (g::bigint * 7919) % (n / 2) AS k, g AS ord
  FROM (VALUES (54653), (54654)) v(n), generate_series(1, 3 * n) g
  UNION ALL
  SELECT n, n / 2 + (g::bigint * 7919) % (n - n / 2), 3 * n + g
  FROM (VALUES (54653), (54654)) v(n), generate_series(1, n - n / 2) g
) s ORDER BY n, ord;
CREATE TEMP TABLE agg_spill_mem AS
SELECT n, bloom_agg(k) f, count(DISTINCT k) AS distinct_values
FROM agg_spill_count GROUP BY n;
SET work_mem = '64kB';
SELECT n, distinct_values, (bloom_info(f)).nbits, (bloom_info(f)).inserted,
       (SELECT bloom_agg(k) FROM agg_spill_count c WHERE c.n = m.n) = f AS spilled_same
FROM agg_spill_mem m ORDER BY n;
RESET work_mem;
DROP TABLE agg_spill_count;
