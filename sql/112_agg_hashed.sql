-- The hashed aggregates (1.2): bloom_agg_hashed, multibloom_agg_hashed,
-- multibloom_agg_fixed_hashed and multibloom_agg_sized_hashed take the
-- values' hashes (bloom_hash) instead of the values, and keep their
-- state in bloom_agg_state / multibloom_agg_state, so a distributed
-- database can run them per shard.  Over bloom_hash(x, 0) (and seed
-- i for multibloom attribute i) every form gives the bytes, insert counts
-- and errors of its polymorphic twin, in every plan.
CREATE COLLATION hashed_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE hv (i2 int2, i4 int4, i8 int8, t text, n numeric, u uuid, grp int);
INSERT INTO hv
SELECT g % 30000, g, g, 'Word ' || (g % 5000), (g % 700) / 8.0, md5((g % 9000)::text)::uuid, g % 4
FROM generate_series(1, 60000) g;
INSERT INTO hv VALUES (NULL, NULL, NULL, NULL, NULL, NULL, 0), (NULL, 7, 7, 'x', NULL, NULL, 1);
ANALYZE hv;

-- bloom_hash: the hash of the value's type, under the call's collation
SELECT bloom_hash(42::int2, 0) = bloom_hash(42::int8, 0) AS int_family,
       bloom_hash(42, 0) <> bloom_hash(42, 1) AS seeded,
       bloom_hash(1.5::numeric, 0) = bloom_hash(1.50000::numeric, 0) AS numeric_scale,
       bloom_hash('Apple'::text COLLATE hashed_ci, 0) = bloom_hash('APPLE'::text COLLATE hashed_ci, 0) AS ci_equal,
       bloom_hash('Apple'::text COLLATE "C", 0) = bloom_hash('APPLE'::text COLLATE "C", 0) AS c_equal,
       bloom_hash(NULL::int, 0) IS NULL AS strict;

-- every form, byte for byte (md5 of the binary form), and the insert count
CREATE FUNCTION pg_temp.same(a bloom, b bloom) RETURNS text LANGUAGE sql AS
$$ SELECT CASE WHEN md5(a::bytea) IS NOT DISTINCT FROM md5(b::bytea)
               THEN 'same ' || coalesce((bloom_info(a)).inserted::text, 'NULL') ELSE 'DIFFERENT' END $$;
CREATE FUNCTION pg_temp.msame(a multibloom, b multibloom) RETURNS text LANGUAGE sql AS
$$ SELECT CASE WHEN md5(a::bytea) IS NOT DISTINCT FROM md5(b::bytea)
               THEN 'same' ELSE 'DIFFERENT' END $$;

SELECT pg_temp.same(bloom_agg(i4), bloom_agg_hashed(bloom_hash(i4, 0))) AS i4_datasized,
       pg_temp.same(bloom_agg(i2), bloom_agg_hashed(bloom_hash(i2, 0))) AS i2_datasized,
       pg_temp.same(bloom_agg(i8, 100000, 0.01), bloom_agg_hashed(bloom_hash(i8, 0), 100000, 0.01)) AS i8_fixed,
       -- int4 and int8 values that are equal hash alike: each twin of the other
       pg_temp.same(bloom_agg(i8, 100000, 0.01), bloom_agg_hashed(bloom_hash(i4, 0), 100000, 0.01)) AS i4_as_i8,
       pg_temp.same(bloom_agg(i4), bloom_agg_hashed(bloom_hash(i8, 0))) AS i8_as_i4
FROM hv;
SELECT pg_temp.same(bloom_agg(t COLLATE "C"), bloom_agg_hashed(bloom_hash(t COLLATE "C", 0))) AS text_c,
       pg_temp.same(bloom_agg(t COLLATE hashed_ci, 8000, 0.01), bloom_agg_hashed(bloom_hash(t COLLATE hashed_ci, 0), 8000, 0.01)) AS text_ci,
       -- the collation matters: under hashed_ci upper case is the same value, under "C" not
       pg_temp.same(bloom_agg_hashed(bloom_hash(upper(t) COLLATE hashed_ci, 0), 8000, 0.01),
                    bloom_agg_hashed(bloom_hash(t COLLATE hashed_ci, 0), 8000, 0.01)) AS ci_upper,
       pg_temp.same(bloom_agg_hashed(bloom_hash(upper(t) COLLATE "C", 0), 8000, 0.01),
                    bloom_agg_hashed(bloom_hash(t COLLATE "C", 0), 8000, 0.01)) AS c_upper
FROM hv;
SELECT pg_temp.same(bloom_agg(n), bloom_agg_hashed(bloom_hash(n, 0))) AS numeric,
       pg_temp.same(bloom_agg(n::numeric(20, 6), 1000, 0.01), bloom_agg_hashed(bloom_hash(n, 0), 1000, 0.01)) AS numeric_scales,
       pg_temp.same(bloom_agg(u), bloom_agg_hashed(bloom_hash(u, 0))) AS uuid,
       pg_temp.same(bloom_agg(u, 10000, 0.001, 'blocked'), bloom_agg_hashed(bloom_hash(u, 0), 10000, 0.001, 'blocked')) AS uuid_blocked,
       pg_temp.same(bloom_agg(i4, 50000, 0.01, 'matrix'), bloom_agg_hashed(bloom_hash(i4, 0), 50000, 0.01, 'matrix')) AS i4_matrix,
       pg_temp.same(bloom_agg(i4, 50000, 0.01, 'classic'), bloom_agg_hashed(bloom_hash(i4, 0), 50000, 0.01, 'classic')) AS i4_classic
FROM hv;
-- small sets stay lists; NULL values are counted by neither
SELECT pg_temp.same(bloom_agg(i4), bloom_agg_hashed(bloom_hash(i4, 0))) AS list,
       pg_temp.same(bloom_agg(i2, 100, 0.01), bloom_agg_hashed(bloom_hash(i2, 0), 100, 0.01)) AS with_nulls
FROM hv WHERE i4 < 40 OR i4 IS NULL;
SELECT pg_temp.msame(multibloom_agg(i4, t, n), multibloom_agg_hashed(ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2), bloom_hash(n, 3)])) AS multi_datasized,
       pg_temp.msame(multibloom_agg(i2, u), multibloom_agg_hashed(ARRAY[bloom_hash(i2, 1), bloom_hash(u, 2)])) AS multi_nulls,
       pg_temp.msame(multibloom_agg_fixed(70000, 0.01, i8, t COLLATE hashed_ci),
                     multibloom_agg_fixed_hashed(70000, 0.01, ARRAY[bloom_hash(i8, 1), bloom_hash(t COLLATE hashed_ci, 2)])) AS multi_fixed,
       pg_temp.msame(multibloom_agg_sized(70000, 0.01, i4),
                     multibloom_agg_sized_hashed(70000, 0.01, ARRAY[bloom_hash(i4, 1)])) AS multi_sized,
       -- attribute seeds matter: the same hashes in the wrong seeds differ
       pg_temp.msame(multibloom_agg(i4, t), multibloom_agg_hashed(ARRAY[bloom_hash(i4, 0), bloom_hash(t, 2)])) AS wrong_seed
FROM hv;
SELECT (multibloom_info(multibloom_agg_hashed(ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2)]))).rows AS rows_counted
FROM hv;

-- no rows
SELECT pg_temp.same(bloom_agg(i4), bloom_agg_hashed(bloom_hash(i4, 0))) AS datasized,
       pg_temp.same(bloom_agg(i4, 1000, 0.01), bloom_agg_hashed(bloom_hash(i4, 0), 1000, 0.01)) AS fixed,
       pg_temp.same(bloom_agg(i4, 1000, 0.01, 'blocked'), bloom_agg_hashed(bloom_hash(i4, 0), 1000, 0.01, 'blocked')) AS blocked,
       bloom_agg_hashed(bloom_hash(i4, 0), 1000, 0.01) IS NOT NULL AS fixed_not_null,
       pg_temp.msame(multibloom_agg(i4, t), multibloom_agg_hashed(ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2)])) AS multi_datasized,
       pg_temp.msame(multibloom_agg_fixed(1000, 0.01, i4, t),
                     multibloom_agg_fixed_hashed(1000, 0.01, ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2)])) AS multi_fixed,
       multibloom_agg_fixed_hashed(1000, 0.01, ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2)]) IS NOT NULL AS multi_fixed_not_null,
       -- shape arguments that are not constants: no shape to give, NULL
       bloom_agg_hashed(bloom_hash(i4, 0), i8, 0.01) IS NULL AS unknown_shape
FROM hv WHERE false;

-- grouped: every group the same
SELECT count(*) AS groups,
       count(*) FILTER (WHERE pg_temp.same(a, ha) LIKE 'same%' AND pg_temp.same(f, hf) LIKE 'same%'
                         AND pg_temp.msame(m, hm) = 'same' AND pg_temp.msame(mf, hmf) = 'same') AS same
FROM (SELECT grp, bloom_agg(t) a, bloom_agg_hashed(bloom_hash(t, 0)) ha,
             bloom_agg(i8, 20000, 0.01) f, bloom_agg_hashed(bloom_hash(i8, 0), 20000, 0.01) hf,
             multibloom_agg(i4, u) m, multibloom_agg_hashed(ARRAY[bloom_hash(i4, 1), bloom_hash(u, 2)]) hm,
             multibloom_agg_fixed(20000, 0.01, i4) mf, multibloom_agg_fixed_hashed(20000, 0.01, ARRAY[bloom_hash(i4, 1)]) hmf
      FROM hv GROUP BY grp) g;
-- shape arguments that vary but agree within each group
SELECT count(*) FILTER (WHERE pg_temp.same(f, hf) LIKE 'same%') AS same_per_group
FROM (SELECT bloom_agg(i4, 1000 + grp, 0.01) f, bloom_agg_hashed(bloom_hash(i4, 0), 1000 + grp, 0.01) hf
      FROM hv GROUP BY grp) g;

-- a forced parallel plan: the partial states travel in their flat form
CREATE TEMP TABLE hv_serial AS
SELECT bloom_agg(i8) a, bloom_agg(t, 8000, 0.01) f, multibloom_agg(i4, t) m,
       multibloom_agg_fixed(70000, 0.01, i4, t) mf FROM hv;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT bloom_agg_hashed(bloom_hash(i8, 0)), multibloom_agg_hashed(ARRAY[bloom_hash(i4, 1)]) FROM hv;
SELECT pg_temp.same(s.a, p.a) AS datasized, pg_temp.same(s.f, p.f) AS fixed,
       pg_temp.msame(s.m, p.m) AS multi_datasized, pg_temp.msame(s.mf, p.mf) AS multi_fixed
FROM hv_serial s,
     (SELECT bloom_agg_hashed(bloom_hash(i8, 0)) a, bloom_agg_hashed(bloom_hash(t, 0), 8000, 0.01) f,
             multibloom_agg_hashed(ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2)]) m,
             multibloom_agg_fixed_hashed(70000, 0.01, ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2)]) mf
      FROM hv) p;
-- past work_mem the workers' collected hashes spill and still combine
SET work_mem = '64kB';
SELECT pg_temp.same(bloom_agg_hashed(bloom_hash(i8, 0)), (SELECT a FROM hv_serial)) AS spilled FROM hv;
RESET work_mem;
SELECT count(*) FILTER (WHERE pg_temp.same(a, ha) LIKE 'same%') AS parallel_groups_same
FROM (SELECT bloom_agg(i4) a, bloom_agg_hashed(bloom_hash(i4, 0)) ha FROM hv GROUP BY grp) g;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the same errors as the polymorphic forms
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN EXECUTE q; RETURN 'no error';
   EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $$;
CREATE FUNCTION pg_temp.twins(poly text, hashed text) RETURNS text LANGUAGE sql AS
$$ SELECT CASE WHEN pg_temp.err(poly) = pg_temp.err(hashed) THEN 'same: ' || pg_temp.err(hashed)
               ELSE 'DIFFERENT: ' || pg_temp.err(poly) || ' / ' || pg_temp.err(hashed) END $$;
SELECT pg_temp.twins('SELECT bloom_agg(i4, 0, 0.01) FROM hv',
                     'SELECT bloom_agg_hashed(bloom_hash(i4, 0), 0, 0.01) FROM hv') AS capacity;
SELECT pg_temp.twins('SELECT bloom_agg(i4, 10, 1.5) FROM hv',
                     'SELECT bloom_agg_hashed(bloom_hash(i4, 0), 10, 1.5) FROM hv') AS fpp;
SELECT pg_temp.twins('SELECT bloom_agg(i4, 10, 0.1, ''nope'') FROM hv',
                     'SELECT bloom_agg_hashed(bloom_hash(i4, 0), 10, 0.1, ''nope'') FROM hv') AS layout;
SELECT pg_temp.twins('SELECT bloom_agg(i4, NULL, 0.1) FROM hv',
                     'SELECT bloom_agg_hashed(bloom_hash(i4, 0), NULL, 0.1) FROM hv') AS null_capacity;
SELECT pg_temp.twins('SELECT bloom_agg(i4, 1000 + i4 % 2, 0.01) FROM hv',
                     'SELECT bloom_agg_hashed(bloom_hash(i4, 0), 1000 + i4 % 2, 0.01) FROM hv') AS rows_differ;
SELECT pg_temp.twins('SELECT bloom_agg(i4, 1000, 0.01, CASE WHEN i4 < 9 THEN ''classic'' ELSE ''blocked'' END) FROM hv',
                     'SELECT bloom_agg_hashed(bloom_hash(i4, 0), 1000, 0.01, CASE WHEN i4 < 9 THEN ''classic'' ELSE ''blocked'' END) FROM hv') AS layouts_differ;
SELECT pg_temp.twins('SELECT multibloom_agg_fixed(1000 + i4 % 2, 0.01, i4) FROM hv',
                     'SELECT multibloom_agg_fixed_hashed(1000 + i4 % 2, 0.01, ARRAY[bloom_hash(i4, 1)]) FROM hv') AS multi_rows_differ;
SELECT pg_temp.twins('SELECT multibloom_agg_fixed(0, 0.01, i4) FROM hv',
                     'SELECT multibloom_agg_fixed_hashed(0, 0.01, ARRAY[bloom_hash(i4, 1)]) FROM hv') AS multi_capacity;
SELECT pg_temp.twins('SELECT multibloom_agg(VARIADIC CASE WHEN i4 = 5 THEN ARRAY[i4] ELSE ARRAY[i4, i4] END) FROM hv',
                     'SELECT multibloom_agg_hashed(CASE WHEN i4 = 5 THEN ARRAY[1::bigint] ELSE ARRAY[1::bigint, 2] END) FROM hv') AS multi_wrong_length;
SELECT pg_temp.twins('SELECT multibloom_agg_fixed(10, 0.01, VARIADIC CASE WHEN i4 = 5 THEN ARRAY[i4] ELSE ARRAY[i4, i4] END) FROM hv',
                     'SELECT multibloom_agg_fixed_hashed(10, 0.01, CASE WHEN i4 = 5 THEN ARRAY[1::bigint] ELSE ARRAY[1::bigint, 2] END) FROM hv') AS multi_fixed_wrong_length;
SELECT pg_temp.twins('SELECT multibloom_agg(VARIADIC NULL::int[]) FROM hv',
                     'SELECT multibloom_agg_hashed(NULL::bigint[]) FROM hv') AS multi_null_array;
SELECT pg_temp.twins('SELECT multibloom_agg(VARIADIC CASE WHEN i4 = 5 THEN NULL ELSE ARRAY[i4] END) FROM hv',
                     'SELECT multibloom_agg_hashed(CASE WHEN i4 = 5 THEN NULL ELSE ARRAY[1::bigint] END) FROM hv') AS multi_later_null_array;
SELECT pg_temp.twins('SELECT multibloom_agg(VARIADIC ARRAY[[i4]]) FROM hv',
                     'SELECT multibloom_agg_hashed(ARRAY[[1::bigint]]) FROM hv') AS multi_two_dimensions;

-- the state types: text and binary forms round trip; a state stopped
-- before its final function and combined later gives the aggregate's bytes
CREATE AGGREGATE hashed_state(bigint) (
	SFUNC = bloom_agg_hashed_trans, STYPE = bloom_agg_state, COMBINEFUNC = bloom_agg_state_combine);
CREATE AGGREGATE hashed_fixed_state(bigint, bigint, float8) (
	SFUNC = bloom_agg_hashed_fixed_trans, STYPE = bloom_agg_state, COMBINEFUNC = bloom_agg_state_combine);
CREATE AGGREGATE filter_of_states(bloom_agg_state) (
	SFUNC = bloom_agg_state_combine, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_hashed_final);
CREATE AGGREGATE fixed_filter_of_states(bloom_agg_state) (
	SFUNC = bloom_agg_state_combine, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_hashed_fixed_final);
CREATE AGGREGATE multi_state(bigint[]) (
	SFUNC = multibloom_agg_hashed_trans, STYPE = multibloom_agg_state);
CREATE AGGREGATE multi_fixed_state(bigint, float8, bigint[]) (
	SFUNC = multibloom_agg_fixed_hashed_trans, STYPE = multibloom_agg_state);
CREATE AGGREGATE multi_of_states(multibloom_agg_state) (
	SFUNC = multibloom_agg_state_combine, STYPE = multibloom_agg_state, FINALFUNC = multibloom_agg_hashed_final);
CREATE AGGREGATE multi_fixed_of_states(multibloom_agg_state) (
	SFUNC = multibloom_agg_state_combine, STYPE = multibloom_agg_state, FINALFUNC = multibloom_agg_fixed_hashed_final);
CREATE TABLE hv_states (grp int, s bloom_agg_state, fs bloom_agg_state, ms multibloom_agg_state, mfs multibloom_agg_state);
INSERT INTO hv_states
SELECT grp, hashed_state(bloom_hash(i8, 0)), hashed_fixed_state(bloom_hash(t, 0), 8000, 0.01),
       multi_state(ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2)]),
       multi_fixed_state(70000, 0.01, ARRAY[bloom_hash(i4, 1), bloom_hash(t, 2)])
FROM hv GROUP BY grp;
SELECT count(*) FILTER (WHERE s::text::bloom_agg_state::text = s::text AND fs::text::bloom_agg_state::text = fs::text
                         AND ms::text::multibloom_agg_state::text = ms::text
                         AND mfs::text::multibloom_agg_state::text = mfs::text) AS text_round_trip,
       count(*) FILTER (WHERE replace(encode(bloom_agg_state_send(s), 'base64'), E'\n', '')::bloom_agg_state::text = s::text
                         AND replace(encode(multibloom_agg_state_send(ms), 'base64'), E'\n', '')::multibloom_agg_state::text = ms::text
                         AND left(s::text, 1) = '~' AND left(ms::text, 1) = '~') AS send_is_text
FROM hv_states;
SELECT pg_temp.same(filter_of_states(s::text::bloom_agg_state), (SELECT a FROM hv_serial)) AS datasized,
       pg_temp.same(fixed_filter_of_states(fs), (SELECT f FROM hv_serial)) AS fixed,
       pg_temp.msame(multi_of_states(ms), (SELECT m FROM hv_serial)) AS multi_datasized,
       pg_temp.msame(multi_fixed_of_states(mfs::text::multibloom_agg_state), (SELECT mf FROM hv_serial)) AS multi_fixed
FROM hv_states;
-- binary COPY: send and receive
\getenv abs_builddir PG_ABS_BUILDDIR
\set states_bin :abs_builddir '/results/112_agg_hashed.bin'
\set damaged_bin :abs_builddir '/results/112_agg_hashed_damaged.bin'
COPY hv_states TO :'states_bin' (FORMAT binary);
CREATE TEMP TABLE hv_states2 (LIKE hv_states);
COPY hv_states2 FROM :'states_bin' (FORMAT binary);
SELECT count(*) FILTER (WHERE a.s::text = b.s::text AND a.fs::text = b.fs::text
                         AND a.ms::text = b.ms::text AND a.mfs::text = b.mfs::text) AS binary_round_trip
FROM hv_states a JOIN hv_states2 b USING (grp);

-- damaged states: every one an ERROR with its sqlstate
SELECT pg_temp.err('SELECT ''not base64!''::bloom_agg_state') AS not_base64;
SELECT pg_temp.err('SELECT ''''::bloom_agg_state') AS empty;
SELECT pg_temp.err('SELECT ''''::multibloom_agg_state') AS multi_empty;
SELECT pg_temp.err($$SELECT encode('\x02', 'base64')::bloom_agg_state$$) AS unknown_format;
SELECT pg_temp.err($$SELECT encode('\x0158', 'base64')::bloom_agg_state$$) AS unknown_form;
SELECT pg_temp.err($$SELECT encode('\x0158', 'base64')::multibloom_agg_state$$) AS multi_unknown_form;
CREATE FUNCTION pg_temp.damaged(b bytea, what text) RETURNS text LANGUAGE sql AS
$$ SELECT pg_temp.err(format('SELECT %L::%s', replace(encode(b, 'base64'), E'\n', ''), what)) $$;
SELECT pg_temp.damaged(substr(b, 1, length(b) - 3), 'bloom_agg_state') AS datasized_cut,
       pg_temp.damaged(b || '\x00'::bytea, 'bloom_agg_state') AS datasized_longer,
       pg_temp.damaged(set_byte(b, 0, 7), 'bloom_agg_state') AS datasized_format
FROM (SELECT bloom_agg_state_send(s) b FROM hv_states WHERE grp = 1) x;
SELECT pg_temp.damaged(substr(b, 1, length(b) - 8), 'bloom_agg_state') AS fixed_cut,
       -- capacity 8000 -> 12096: the filter no longer has its arguments' shape
       pg_temp.damaged(set_byte(b, 10, get_byte(b, 10) + 16), 'bloom_agg_state') AS fixed_capacity,
       pg_temp.damaged(set_byte(b, 2, 1), 'bloom_agg_state') AS fixed_padding,
       pg_temp.damaged(set_byte(b, 25, 2), 'bloom_agg_state') AS fixed_flag
FROM (SELECT bloom_agg_state_send(fs) b FROM hv_states WHERE grp = 1) x;
SELECT pg_temp.damaged(substr(b, 1, length(b) - 3), 'multibloom_agg_state') AS multi_cut,
       pg_temp.damaged(set_byte(b, 2, 40), 'multibloom_agg_state') AS multi_attributes,
       pg_temp.damaged(set_byte(b, 1, ascii('F')), 'multibloom_agg_state') AS multi_wrong_form
FROM (SELECT multibloom_agg_state_send(ms) b FROM hv_states WHERE grp = 1) x;
SELECT pg_temp.damaged(substr(b, 1, length(b) - 8), 'multibloom_agg_state') AS multi_fixed_cut
FROM (SELECT multibloom_agg_state_send(mfs) b FROM hv_states WHERE grp = 1) x;
-- the same damage through binary receive
CREATE TEMP TABLE hv_damaged AS
SELECT substr(bloom_agg_state_send(fs), 1, 40) AS b FROM hv_states WHERE grp = 1;
COPY hv_damaged TO :'damaged_bin' (FORMAT binary);
CREATE TEMP TABLE hv_received (s bloom_agg_state);
SELECT pg_temp.err(format('COPY hv_received FROM %L (FORMAT binary)', :'damaged_bin')) AS received;
-- a state of one form given to the other, or of one type to the other's functions
SELECT pg_temp.err('SELECT fixed_filter_of_states(s) FROM hv_states') AS wrong_form;
SELECT pg_temp.err('SELECT multi_fixed_of_states(ms) FROM hv_states') AS multi_wrong_form;
-- the support functions run only inside an aggregate
SELECT pg_temp.err('SELECT bloom_agg_hashed_final(s) FROM hv_states') AS outside_aggregate;
-- bloom_agg_state_result, the last step of the binary route through Citus:
-- a state of the other form is refused; over no rows the twin's result
SELECT pg_temp.err('SELECT bloom_agg_state_result(fs, true) FROM hv_states') AS result_wrong_form_fixed;
SELECT pg_temp.err('SELECT bloom_agg_state_result(s, false) FROM hv_states') AS result_wrong_form_sized;
SELECT bloom_agg_state_result(NULL, true) IS NOT NULL AS result_empty_sized,
       bloom_agg_state_result(NULL, false) IS NULL AS result_empty_fixed;
