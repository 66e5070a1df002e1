-- Text, binary and bytea forms.
-- text: canonical base64 of the binary form; exact round trip both ways
SELECT bloom_empty_with(64, 3)::text;
SELECT bloom_add(bloom_empty_with(64, 3), 1)::text;
SELECT 'AQADAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAAAAAAAAAAA='::bloom = bloom_empty_with(1, 1) AS parsed;
CREATE TEMP TABLE io AS
SELECT n, bloom_add_all(bloom_empty(n, 0.01), array(SELECT generate_series(1, n::int))) AS f
FROM (VALUES (1), (10), (1000), (100000)) v(n);
SELECT n, f::text::bloom = f AS text_round_trip,
       (f::text::bloom)::text = f::text AS text_stable,
       f::bytea::bloom = f AS bytea_round_trip,
       length(f::text)::float8 / length(f::bytea) <= 1.4 AS compact,
       length(f::bytea) = (bloom_info(f)).bytes - 4 AS bytea_is_binary
FROM io ORDER BY n;
-- the insert count survives every form
SELECT n, (bloom_info(f::text::bloom)).inserted, (bloom_info(f::bytea::bloom)).inserted FROM io ORDER BY n;

-- binary COPY keeps every bit (send/recv are the bytea bytes); the files
-- go to this run's results directory
\getenv abs_builddir PG_ABS_BUILDDIR
\set io_bin :abs_builddir '/results/004_bloom_io.bin'
\set io_txt :abs_builddir '/results/004_bloom_io.txt'
COPY io TO :'io_bin' (FORMAT binary);
CREATE TEMP TABLE io2 (LIKE io);
COPY io2 FROM :'io_bin' (FORMAT binary);
SELECT n, io.f = io2.f AS same, io.f::text = io2.f::text AS same_text FROM io JOIN io2 USING (n) ORDER BY n;
-- text COPY as well
COPY io TO :'io_txt';
TRUNCATE io2;
COPY io2 FROM :'io_txt';
SELECT count(*) FILTER (WHERE io.f = io2.f) AS same FROM io JOIN io2 USING (n);

-- the documented byte layout (doc/format.md)
SELECT encode(substring(bloom_add(bloom_empty_with(128, 2), 1)::bytea FROM 1 FOR 60), 'hex') AS header;
SELECT length(bloom_empty_with(129, 2)::bytea) AS bytes_129_bits;

-- malformed text: every one an error, never a crash
SELECT ''::bloom;
SELECT 'abc'::bloom;
SELECT 'AQABAA=='::bloom;
SELECT '!!!!'::bloom;
SELECT 'AQABAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAAAAAAAAAAA'::bloom;
SELECT ' AQABAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAAAAAAAAAAA='::bloom;
SELECT 'AQABAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAAAAAAAAAAB='::bloom;
SELECT 'A=AA'::bloom;
SELECT 'AA=A'::bloom;

-- malformed binary: each header field broken in turn
CREATE TEMP TABLE good AS SELECT bloom_add(bloom_empty_with(128, 2), 1)::bytea AS b;
CREATE FUNCTION poke(b bytea, pos int, val int) RETURNS bytea
	LANGUAGE sql AS $$ SELECT set_byte(b, pos, val) $$;
SELECT poke(b, 0, 2)::bloom FROM good;            -- version 2 (future)
SELECT poke(b, 0, 0)::bloom FROM good;            -- version 0
SELECT poke(b, 1, 9)::bloom FROM good;            -- unknown layout
SELECT poke(b, 2, 7)::bloom FROM good;            -- unknown hash scheme
SELECT poke(b, 3, 128)::bloom FROM good;          -- unknown flag
SELECT poke(b, 4, 129)::bloom FROM good;          -- nbits 129: payload mismatch
SELECT poke(b, 11, 1)::bloom FROM good;           -- nbits beyond the limit
SELECT poke(poke(b, 4, 0), 5, 0)::bloom FROM good;  -- nbits 0
SELECT poke(b, 28, 0)::bloom FROM good;           -- nhashes 0
SELECT poke(b, 28, 200)::bloom FROM good;         -- nhashes 200
SELECT poke(b, 32, 1)::bloom FROM good;           -- rows on a classic filter
SELECT poke(b, 36, 1)::bloom FROM good;           -- locators on a classic filter
SELECT poke(b, 40, 1)::bloom FROM good;           -- reserved
SELECT poke(b, 44, 0)::bloom FROM good;           -- full_at on a classic filter
SELECT poke(b, 59, 1)::bloom FROM good;           -- reserved
SELECT substring(b FROM 1 FOR 59)::bloom FROM good;   -- short header
SELECT substring(b FROM 1 FOR 70)::bloom FROM good;   -- short payload
SELECT (b || '\x00'::bytea)::bloom FROM good;          -- trailing byte
SELECT ''::bytea::bloom;
-- bits beyond nbits in the last word must be clear
SELECT bloom_empty_with(100, 1)::bytea::bloom IS NOT NULL AS ok;
SELECT set_byte(bloom_empty_with(100, 1)::bytea, 60 + 15, 128)::bloom;
-- a field that only looks wrong is fine: insert count and seed are free
SELECT (bloom_info(poke(b, 20, 99)::bloom)).inserted, (bloom_info(poke(b, 12, 5)::bloom)).seed FROM good;
