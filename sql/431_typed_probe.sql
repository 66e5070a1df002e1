-- bloom_contains_typed, the probe the semijoin prefilter ships
-- (src/semijoin/typed_probe.c, doc/semijoin.md): where the value's type,
-- collation and encoding are the declared ones it answers as
-- bloom_contains; where they may differ it passes every value; a damaged
-- filter is refused as bloom_contains refuses it.  The servers it is meant
-- for are tested in test/t/713_semijoin_types.pl.
CREATE TEMP TABLE tp AS
SELECT bloom_agg(g, 100, 0.01) AS fi, bloom_agg('k' || g, 100, 0.01) AS ft
FROM generate_series(1, 100) g;
-- the declared type itself: the answers of bloom_contains, member and not
SELECT bloom_contains_typed(fi, 7, 'integer', '', 'UTF8') AS member,
       bloom_contains_typed(fi, 1000, 'integer', '', 'UTF8')
         = bloom_contains(fi, 1000) AS nonmember_as_plain
FROM tp;
-- over 1,000 values of each kind, counted against bloom_contains
SELECT count(*) FILTER (WHERE bloom_contains_typed(fi, g, 'integer', '', 'UTF8'))
         = count(*) FILTER (WHERE bloom_contains(fi, g)) AS int_same,
       count(*) FILTER (WHERE bloom_contains_typed(fi, g::int8, 'integer', '', 'UTF8'))
         = count(*) FILTER (WHERE bloom_contains(fi, g::int8)) AS int_family_same,
       count(*) FILTER (WHERE bloom_contains_typed(ft, 'k' || g, 'pg_catalog.text', '', 'UTF8'))
         = count(*) FILTER (WHERE bloom_contains(ft, 'k' || g)) AS text_same,
       count(*) FILTER (WHERE bloom_contains_typed(ft, ('k' || g)::varchar, 'pg_catalog.text', '', 'UTF8'))
         = count(*) FILTER (WHERE bloom_contains(ft, 'k' || g)) AS varchar_as_text_same
FROM tp, generate_series(1, 1000) g;
-- a value that may differ from what the declaring server sees passes:
-- another type, another encoding for text, an unknown type name
SELECT count(*) FILTER (WHERE bloom_contains_typed(fi, g::numeric, 'integer', '', 'UTF8')) AS numeric_declared_int,
       count(*) FILTER (WHERE bloom_contains_typed(ft, 'k' || g, 'pg_catalog.text', '', 'LATIN1')) AS other_encoding,
       count(*) FILTER (WHERE bloom_contains_typed(fi, g, 'no such type', '', 'UTF8')) AS unknown_type
FROM tp, generate_series(1001, 2000) g;
-- a NULL value answers NULL, as bloom_contains does
SELECT bloom_contains_typed(fi, NULL::int, 'integer', '', 'UTF8') IS NULL AS null_value FROM tp;
-- damaged filters are refused
SELECT bloom_contains_typed('\x00'::bytea::bloom, 2, 'integer', '', 'UTF8');
SELECT bloom_contains_typed(overlay(fi::bytea PLACING '\x09'::bytea FROM 1)::bloom, 2, 'integer', '', 'UTF8')
FROM tp;
