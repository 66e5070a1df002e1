-- The state types of the set-operation aggregates (1.2): bloom_union_agg
-- and bloom_intersect_agg keep a bloom_setop_state, multibloom_union_agg a
-- multibloom, so that a distributed database can run them per shard and
-- combine partial states that travel as text or binary.  Here the same
-- split is made by hand: aggregates that stop at the state, the state sent
-- through its text and binary forms, and aggregates that combine states.
-- Every state read is checked in full; window aggregates see the running
-- state without it being consumed.
CREATE TABLE st_days (d int, f bloom, a bloom, m multibloom);
-- fixed-shape filters, data-sized bit arrays and lists, and empty lists
INSERT INTO st_days
SELECT g % 4, bloom_agg(g, 1000, 0.01), bloom_agg(g), multibloom_agg_fixed(1000, 0.01, g, g % 7)
FROM generate_series(1, 2000) g GROUP BY 1;
INSERT INTO st_days
SELECT 4 + g % 3, bloom_agg(g, 1000, 0.01), bloom_agg(g), multibloom_agg_fixed(1000, 0.01, g, g % 7)
FROM generate_series(1, 30) g GROUP BY 1;
INSERT INTO st_days
SELECT 7, bloom_agg(g, 1000, 0.01), bloom_agg(g), multibloom_agg_fixed(1000, 0.01, g, g % 7)
FROM generate_series(1, 0) g;
SELECT d, (bloom_info(a)).layout FROM st_days ORDER BY d;

CREATE AGGREGATE union_state(bloom) (
	SFUNC = bloom_union_agg_step, STYPE = bloom_setop_state,
	COMBINEFUNC = bloom_union_state_combine);
CREATE AGGREGATE intersect_state(bloom) (
	SFUNC = bloom_intersect_agg_step, STYPE = bloom_setop_state,
	COMBINEFUNC = bloom_intersect_state_combine);
CREATE AGGREGATE union_of_states(bloom_setop_state) (
	SFUNC = bloom_union_state_combine, STYPE = bloom_setop_state,
	FINALFUNC = bloom_setop_state_final);
CREATE AGGREGATE intersect_of_states(bloom_setop_state) (
	SFUNC = bloom_intersect_state_combine, STYPE = bloom_setop_state,
	FINALFUNC = bloom_setop_state_final);

-- partial states per half, through text, then combined: the aggregate's bytes
SELECT union_of_states(s::text::bloom_setop_state) = (SELECT bloom_union_agg(a) FROM st_days) AS datasized_union,
       (SELECT union_of_states(s2::text::bloom_setop_state) FROM
          (SELECT union_state(f) AS s2 FROM st_days GROUP BY d % 2) y)
         = (SELECT bloom_union_agg(f) FROM st_days) AS fixed_union
FROM (SELECT union_state(a) AS s FROM st_days GROUP BY d % 2) x;
SELECT intersect_of_states(s::text::bloom_setop_state) = (SELECT bloom_intersect_agg(f) FROM st_days WHERE d < 4) AS intersection
FROM (SELECT intersect_state(f) AS s FROM st_days WHERE d < 4 GROUP BY d % 2) x;
-- binary send gives the bytes the text form encodes: the text is '~' and
-- their seven-bit form (no longer than base64, which input still reads)
SELECT replace(encode(bloom_setop_state_send(s), 'base64'), E'\n', '')::bloom_setop_state::text = s::text AS send_is_text,
       left(s::text, 1) AS mark,
       octet_length(s::text) <= octet_length(replace(encode(bloom_setop_state_send(s), 'base64'), E'\n', '')) AS no_longer_than_base64
FROM (SELECT union_state(a) AS s FROM st_days) x;
-- a state stored in a table reads back
CREATE TEMP TABLE st_stored AS SELECT d % 2 AS half, union_state(a) AS s FROM st_days GROUP BY 1;
SELECT union_of_states(s) = (SELECT bloom_union_agg(a) FROM st_days) AS stored FROM st_stored;
-- no filter: no state, NULL
SELECT union_state(f) IS NULL AS no_state, union_of_states(NULL::bloom_setop_state) IS NULL AS no_result
FROM st_days WHERE false;

-- window aggregates: the running union and intersection, and a moving frame
SELECT d,
       bloom_union_agg(f) OVER w = (SELECT bloom_union_agg(f) FROM st_days s WHERE s.d <= o.d) AS running_union,
       bloom_intersect_agg(f) OVER w = (SELECT bloom_intersect_agg(f) FROM st_days s WHERE s.d <= o.d) AS running_intersection,
       bloom_union_agg(a) OVER w = (SELECT bloom_union_agg(a) FROM st_days s WHERE s.d <= o.d) AS running_datasized,
       multibloom_union_agg(m) OVER w = (SELECT multibloom_union_agg(m) FROM st_days s WHERE s.d <= o.d) AS running_multibloom,
       bloom_union_agg(f) OVER (ORDER BY d ROWS 1 PRECEDING)
         = (SELECT bloom_union_agg(f) FROM st_days s WHERE s.d IN (o.d - 1, o.d)) AS moving_union
FROM st_days o WINDOW w AS (ORDER BY d) ORDER BY d;

-- hostile states: every one an ERROR
SELECT ''::bloom_setop_state;
SELECT 'not base64'::bloom_setop_state;
SELECT encode('\x5800000000000000000000000000000000000000', 'base64')::bloom_setop_state;  -- kind 'X'
SELECT encode('\x5500000100000000000000000000000000000000', 'base64')::bloom_setop_state;  -- version 1
SELECT encode('\x550100000000000000000000000000000000000000', 'base64')::bloom_setop_state; -- bits said present, length 0
SELECT encode('\x55010000ffffffffffffff7f0000000000000000', 'base64')::bloom_setop_state;  -- bits longer than the state
SELECT encode('\x49000000000000000000000000000000000000000000000000000000', 'base64')::bloom_setop_state; -- trailing bytes
SELECT length(encode('\x4900000000000000000000000000000000000000', 'base64')::bloom_setop_state::text) AS empty_intersection_state;
SELECT E'~I\x7f\x7f'::bloom_setop_state;  -- seven-bit text: a group of 127 where padding belongs
SELECT E'~$\x7f'::bloom_setop_state;      -- a dangling escape
SELECT '~'::bloom_setop_state;            -- no bytes
-- a real state cut short, and with a byte of a filter changed
SELECT replace(encode(substr(bloom_setop_state_send(s), 1, octet_length(bloom_setop_state_send(s)) - 8), 'base64'), E'\n', '')::bloom_setop_state
FROM (SELECT union_state(f) AS s FROM st_days) x;
SELECT replace(encode(set_byte(bloom_setop_state_send(s), 25, 200), 'base64'), E'\n', '')::bloom_setop_state
FROM (SELECT union_state(f) AS s FROM st_days) x;
-- a union's state given to an intersection
SELECT intersect_of_states(s) FROM st_stored;
-- the support functions run only inside an aggregate
SELECT bloom_union_agg_step(NULL, NULL);
SELECT bloom_setop_state_final(s) FROM st_stored;
SELECT multibloom_union_agg_step(m, m) FROM st_days WHERE d = 0;
