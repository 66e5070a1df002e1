-- multibloom: every error
-- number of attributes
SELECT multibloom_empty(0, 10);
SELECT multibloom_empty(33, 10);
SELECT multibloom_empty(-1, 10);
SELECT multibloom_empty(32, 10) IS NOT NULL AS max_ok;
-- capacity and fpp
SELECT multibloom_empty(2, 0);
SELECT multibloom_empty(2, 10, 0);
SELECT multibloom_empty(2, 10, 1);
SELECT multibloom_empty(2, 10, 'NaN');
SELECT multibloom_empty(16, 1000000000, 0.0001);
SELECT multibloom_empty(32, 100000000, 0.01);
-- argument count
SELECT multibloom_add(multibloom_empty(2, 10), 1);
SELECT multibloom_add(multibloom_empty(2, 10), 1, 2, 3);
SELECT multibloom_contains(multibloom_empty(2, 10), 1);
SELECT multibloom_contains(multibloom_empty(3, 10), VARIADIC ARRAY[1, 2]);
SELECT multibloom_contains(multibloom_empty(2, 10), VARIADIC ARRAY[[1, 2], [3, 4]]);
SELECT multibloom_contains(multibloom_empty(2, 10), VARIADIC NULL::int[]);
-- a type without a hash opclass
SELECT multibloom_add(multibloom_empty(2, 10), 1, point(1, 2));
-- attribute number
SELECT multibloom_attribute(multibloom_empty(2, 10), 0);
SELECT multibloom_attribute(multibloom_empty(2, 10), 3);
-- incompatible unions
SELECT multibloom_union(multibloom_empty(2, 10), multibloom_empty(3, 10));
SELECT multibloom_empty(2, 10) | multibloom_empty(2, 1000);
SELECT multibloom_union_agg(f) FROM (VALUES (multibloom_empty(2, 10)), (multibloom_empty(2, 10, 0.5))) v(f);
-- aggregates
SELECT multibloom_agg_fixed(g, 0.01, g, g) FROM generate_series(1, 3) g;
SELECT multibloom_agg_fixed(NULL, 0.01, g, g) FROM generate_series(1, 3) g;
SELECT multibloom_agg(VARIADIC ARRAY[g, g]) IS NOT NULL AS array_form_ok FROM generate_series(1, 3) g;
SELECT multibloom_agg(VARIADIC ARRAY[]::int[]) FROM generate_series(1, 3) g;
SELECT multibloom_agg(g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g)
FROM generate_series(1, 3) g;
-- malformed text
SELECT 'not base64!'::multibloom;
SELECT 'AAAA'::multibloom;
SELECT ''::multibloom;
-- malformed binary: every header field and every embedded bloom header
CREATE TABLE mb_good AS SELECT multibloom_add(multibloom_empty(2, 10, 0.1), 1, 2)::bytea AS b;
SELECT length(b) AS wire_bytes FROM mb_good;
SELECT (overlay(b placing '\x02' from 1))::multibloom FROM mb_good;        -- version
SELECT (overlay(b placing '\x00' from 2))::multibloom FROM mb_good;        -- nattrs 0
SELECT (overlay(b placing '\x21' from 2))::multibloom FROM mb_good;        -- nattrs 33
SELECT (overlay(b placing '\x03' from 2))::multibloom FROM mb_good;        -- nattrs 3
SELECT (overlay(b placing '\x80' from 3))::multibloom FROM mb_good;        -- flags
SELECT (overlay(b placing '\x01' from 4))::multibloom FROM mb_good;        -- reserved
SELECT (overlay(b placing '\x01' from 20))::multibloom FROM mb_good;       -- reserved
SELECT (overlay(b placing '\xff' from 28))::multibloom FROM mb_good;       -- part length huge
SELECT (overlay(b placing '\x48' from 21))::multibloom FROM mb_good;       -- part length wrong
SELECT (overlay(b placing '\x07' from 45))::multibloom FROM mb_good;       -- embedded version
SELECT (overlay(b placing '\x05' from 46))::multibloom FROM mb_good;       -- embedded layout
SELECT (overlay(b placing '\x09' from 57))::multibloom FROM mb_good;       -- embedded seed
SELECT (overlay(b placing '\x00' from 73))::multibloom FROM mb_good;       -- embedded nhashes 0
SELECT (overlay(b placing '\x01' from 85))::multibloom FROM mb_good;       -- embedded reserved
SELECT substr(b, 1, length(b) - 1)::multibloom FROM mb_good;               -- truncated
SELECT (b || '\x00'::bytea)::multibloom FROM mb_good;                      -- trailing byte
SELECT substr(b, 1, 10)::multibloom FROM mb_good;                          -- header cut
SELECT ''::bytea::multibloom;
-- the same checks apply to text input
SELECT replace(encode(overlay(b placing '\x02' from 1), 'base64'), E'\n', '')::multibloom FROM mb_good;
SELECT (replace(encode(b, 'base64'), E'\n', '') || '=')::multibloom FROM mb_good;
-- a bloom value is not a multibloom
SELECT bloom_empty(10)::bytea::multibloom;
DROP TABLE mb_good;
