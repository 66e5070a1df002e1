-- bench/server/tpch/gen.sql: a TPC-H-like database of scale factor :sf,
-- generated in SQL (no dbgen).  Every value is a pseudo-random function of
-- the row number (tpch_h: a hash of the row number and a seed per column),
-- so that two runs at one scale give the same data.  The eight tables have
-- TPC-H's columns, keys and cardinalities (lineitem about 6 * 10^6 * sf
-- rows); the value domains follow the specification's closely enough for
-- the 22 queries' selectivities: dates 1992-1998, five market segments and
-- priorities, 25 nations in 5 regions, 25 brands, 40 containers, 150 types,
-- 7 ship modes, part names of five of 92 colours, and comments drawn from a
-- small word list so that LIKE '%special%requests%' and the like select a
-- few percent.  Then primary keys, one index on lineitem(l_partkey) (Q17
-- and Q20 run a correlated subquery per part, which PostgreSQL does not
-- decorrelate), and ANALYZE.
\set ON_ERROR_STOP on
SET work_mem = '256MB';
SET maintenance_work_mem = '1GB';
CREATE FUNCTION tpch_h(bigint, int) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS 'SELECT (hashint8extended($1, $2) >> 1) & 2147483647';
-- a uniform integer in [lo, hi], seed s
CREATE FUNCTION tpch_u(bigint, int, bigint, bigint) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS 'SELECT $3 + tpch_h($1, $2) % ($4 - $3 + 1)';
-- one of the words of the array
CREATE FUNCTION tpch_pick(bigint, int, text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS 'SELECT $3[1 + tpch_h($1, $2) % cardinality($3)]';
-- a comment of 3 to 8 words of the list
CREATE FUNCTION tpch_comment(bigint, int) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$SELECT string_agg(tpch_pick($1, $2 * 16 + i, ARRAY['furiously', 'quickly', 'carefully', 'slyly',
	'blithely', 'fluffily', 'ironic', 'final', 'regular', 'express', 'pending', 'bold', 'even', 'silent',
	'special', 'unusual', 'packages', 'deposits', 'requests', 'accounts', 'instructions', 'theodolites',
	'foxes', 'pinto', 'beans', 'asymptotes', 'dependencies', 'excuses', 'platelets', 'ideas', 'sleep',
	'wake', 'haggle', 'nag', 'use', 'cajole', 'detect', 'integrate', 'among', 'above', 'against', 'about']), ' ')
  FROM generate_series(1, 3 + tpch_h($1, $2 * 16)::int % 6) i$$;
-- retail price of a part, the specification's formula
CREATE FUNCTION tpch_price(bigint) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS 'SELECT ((90000 + (($1 / 10) % 20001) + 100 * ($1 % 1000)) / 100.0)::numeric(15,2)';

SELECT (:sf * 10000)::bigint AS nsupp, (:sf * 200000)::bigint AS npart,
       (:sf * 150000)::bigint AS ncust, (:sf * 1500000)::bigint AS nord \gset

CREATE TABLE region (r_regionkey int NOT NULL, r_name char(25) NOT NULL, r_comment varchar(152));
INSERT INTO region SELECT i - 1, (ARRAY['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'])[i], tpch_comment(i, 1)
FROM generate_series(1, 5) i;

CREATE TABLE nation (n_nationkey int NOT NULL, n_name char(25) NOT NULL, n_regionkey int NOT NULL, n_comment varchar(152));
INSERT INTO nation SELECT k, n, r, tpch_comment(k, 2) FROM (VALUES
	(0, 'ALGERIA', 0), (1, 'ARGENTINA', 1), (2, 'BRAZIL', 1), (3, 'CANADA', 1), (4, 'EGYPT', 4),
	(5, 'ETHIOPIA', 0), (6, 'FRANCE', 3), (7, 'GERMANY', 3), (8, 'INDIA', 2), (9, 'INDONESIA', 2),
	(10, 'IRAN', 4), (11, 'IRAQ', 4), (12, 'JAPAN', 2), (13, 'JORDAN', 4), (14, 'KENYA', 0),
	(15, 'MOROCCO', 0), (16, 'MOZAMBIQUE', 0), (17, 'PERU', 1), (18, 'CHINA', 2), (19, 'ROMANIA', 3),
	(20, 'SAUDI ARABIA', 4), (21, 'VIETNAM', 2), (22, 'RUSSIA', 3), (23, 'UNITED KINGDOM', 3),
	(24, 'UNITED STATES', 1)) v(k, n, r);

CREATE TABLE supplier (s_suppkey int NOT NULL, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL,
	s_nationkey int NOT NULL, s_phone char(15) NOT NULL, s_acctbal numeric(15,2) NOT NULL, s_comment varchar(101) NOT NULL);
INSERT INTO supplier
SELECT g, 'Supplier#' || lpad(g::text, 9, '0'), md5(g::text), nk,
       (nk + 10) || '-' || tpch_u(g, 12, 100, 999) || '-' || tpch_u(g, 13, 100, 999) || '-' || tpch_u(g, 14, 1000, 9999),
       tpch_u(g, 15, -99999, 999999) / 100.0,
       -- about 5 in 10,000 complain (Q16), as in the specification
       CASE WHEN tpch_h(g, 16) % 2000 = 0 THEN left('slyly Customer even Complaints ' || tpch_comment(g, 17), 101)
            ELSE left(tpch_comment(g, 17), 101) END
FROM generate_series(1, :nsupp) g, LATERAL (SELECT tpch_u(g, 11, 0, 24)::int AS nk) n;

CREATE TABLE part (p_partkey int NOT NULL, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL,
	p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size int NOT NULL, p_container char(10) NOT NULL,
	p_retailprice numeric(15,2) NOT NULL, p_comment varchar(23) NOT NULL);
INSERT INTO part
SELECT g,
       (SELECT string_agg(tpch_pick(g, 20 + i, ARRAY['almond', 'antique', 'aquamarine', 'azure', 'beige',
		'bisque', 'black', 'blanched', 'blue', 'blush', 'brown', 'burlywood', 'burnished', 'chartreuse',
		'chiffon', 'chocolate', 'coral', 'cornflower', 'cornsilk', 'cream', 'cyan', 'dark', 'deep', 'dim',
		'dodger', 'drab', 'firebrick', 'floral', 'forest', 'frosted', 'gainsboro', 'ghost', 'goldenrod',
		'green', 'grey', 'honeydew', 'hot', 'indian', 'ivory', 'khaki', 'lace', 'lavender', 'lawn', 'lemon',
		'light', 'lime', 'linen', 'magenta', 'maroon', 'medium', 'metallic', 'midnight', 'mint', 'misty',
		'moccasin', 'navajo', 'navy', 'olive', 'orange', 'orchid', 'pale', 'papaya', 'peach', 'peru', 'pink',
		'plum', 'powder', 'puff', 'purple', 'red', 'rose', 'rosy', 'royal', 'saddle', 'salmon', 'sandy',
		'seashell', 'sienna', 'sky', 'slate', 'smoke', 'snow', 'spring', 'steel', 'tan', 'thistle', 'tomato',
		'turquoise', 'violet', 'wheat', 'white', 'yellow']), ' ') FROM generate_series(1, 5) i),
       'Manufacturer#' || m, 'Brand#' || m || tpch_u(g, 31, 1, 5),
       tpch_pick(g, 32, ARRAY['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO']) || ' ' ||
       tpch_pick(g, 33, ARRAY['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED']) || ' ' ||
       tpch_pick(g, 34, ARRAY['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER']),
       tpch_u(g, 35, 1, 50),
       tpch_pick(g, 36, ARRAY['SM', 'LG', 'MED', 'JUMBO', 'WRAP']) || ' ' ||
       tpch_pick(g, 37, ARRAY['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM']),
       tpch_price(g), left(tpch_comment(g, 38), 23)
FROM generate_series(1, :npart) g, LATERAL (SELECT tpch_u(g, 30, 1, 5) AS m) m;

-- four suppliers per part, the specification's spread
CREATE TABLE partsupp (ps_partkey int NOT NULL, ps_suppkey int NOT NULL, ps_availqty int NOT NULL,
	ps_supplycost numeric(15,2) NOT NULL, ps_comment varchar(199) NOT NULL);
INSERT INTO partsupp
SELECT p, (p + i * (:nsupp / 4 + (p - 1) / :nsupp)) % :nsupp + 1,
       tpch_u(p * 4 + i, 40, 1, 9999), tpch_u(p * 4 + i, 41, 100, 100000) / 100.0, left(tpch_comment(p * 4 + i, 42), 199)
FROM generate_series(1, :npart) p, generate_series(0, 3) i;

CREATE TABLE customer (c_custkey int NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL,
	c_nationkey int NOT NULL, c_phone char(15) NOT NULL, c_acctbal numeric(15,2) NOT NULL,
	c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL);
INSERT INTO customer
SELECT g, 'Customer#' || lpad(g::text, 9, '0'), md5(g::text), nk,
       (nk + 10) || '-' || tpch_u(g, 51, 100, 999) || '-' || tpch_u(g, 52, 100, 999) || '-' || tpch_u(g, 53, 1000, 9999),
       tpch_u(g, 54, -99999, 999999) / 100.0,
       tpch_pick(g, 55, ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD']), left(tpch_comment(g, 56), 117)
FROM generate_series(1, :ncust) g, LATERAL (SELECT tpch_u(g, 50, 0, 24)::int AS nk) n;

-- Orders without their totals and status first: those come from the lines.
-- Keys are sparse as in the specification (8 of every 32); a third of the
-- customers (custkey divisible by 3) have no orders.
CREATE TEMP TABLE orders0 AS
SELECT ((g - 1) / 8) * 32 + (g - 1) % 8 + 1 AS o_orderkey,
       CASE WHEN c % 3 = 0 THEN CASE WHEN c = :ncust THEN c - 1 ELSE c + 1 END ELSE c END::int AS o_custkey,
       date '1992-01-01' + tpch_u(g, 61, 0, (date '1998-08-02' - date '1992-01-01'))::int AS o_orderdate,
       tpch_pick(g, 62, ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW']) AS o_orderpriority,
       'Clerk#' || lpad(tpch_u(g, 63, 1, greatest(1, (:sf * 1000)::int))::text, 9, '0') AS o_clerk,
       left(tpch_comment(g, 64), 79) AS o_comment, tpch_u(g, 65, 1, 7) AS nlines
FROM generate_series(1, :nord) g, LATERAL (SELECT tpch_u(g, 60, 1, :ncust) AS c) c;

CREATE TABLE lineitem (l_orderkey bigint NOT NULL, l_partkey int NOT NULL, l_suppkey int NOT NULL,
	l_linenumber int NOT NULL, l_quantity numeric(15,2) NOT NULL, l_extendedprice numeric(15,2) NOT NULL,
	l_discount numeric(15,2) NOT NULL, l_tax numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL,
	l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL,
	l_receiptdate date NOT NULL, l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL,
	l_comment varchar(44) NOT NULL);
INSERT INTO lineitem
SELECT o_orderkey, pk, (pk + si * (:nsupp / 4 + (pk - 1) / :nsupp)) % :nsupp + 1, ln, q,
       q * tpch_price(pk), tpch_u(x, 73, 0, 10) / 100.0, tpch_u(x, 74, 0, 8) / 100.0,
       CASE WHEN rd <= date '1995-06-17' THEN tpch_pick(x, 75, ARRAY['R', 'A']) ELSE 'N' END,
       CASE WHEN sd > date '1995-06-17' THEN 'O' ELSE 'F' END,
       sd, o_orderdate + tpch_u(x, 76, 30, 90)::int, rd,
       tpch_pick(x, 77, ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN']),
       tpch_pick(x, 78, ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB']),
       left(tpch_comment(x, 79), 44)
FROM orders0, generate_series(1, nlines) ln,
     LATERAL (SELECT o_orderkey * 8 + ln AS x) x,
     LATERAL (SELECT tpch_u(x, 70, 1, :npart) AS pk, tpch_u(x, 71, 0, 3) AS si, tpch_u(x, 72, 1, 50)::numeric AS q,
                     o_orderdate + tpch_u(x, 80, 1, 121)::int AS sd) a,
     LATERAL (SELECT sd + tpch_u(x, 81, 1, 30)::int AS rd) r;

CREATE TABLE orders (o_orderkey bigint NOT NULL, o_custkey int NOT NULL, o_orderstatus char(1) NOT NULL,
	o_totalprice numeric(15,2) NOT NULL, o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL,
	o_clerk char(15) NOT NULL, o_shippriority int NOT NULL, o_comment varchar(79) NOT NULL);
INSERT INTO orders
SELECT o.o_orderkey, o_custkey,
       CASE WHEN l.nf = l.n THEN 'F' WHEN l.nf = 0 THEN 'O' ELSE 'P' END, l.total,
       o_orderdate, o_orderpriority, o_clerk, 0, o_comment
FROM orders0 o JOIN (SELECT l_orderkey, count(*) AS n, count(*) FILTER (WHERE l_linestatus = 'F') AS nf,
                            sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)) AS total
                     FROM lineitem GROUP BY l_orderkey) l ON l.l_orderkey = o.o_orderkey;
DROP TABLE orders0;

ALTER TABLE region ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE part ADD PRIMARY KEY (p_partkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
CREATE INDEX lineitem_partkey ON lineitem (l_partkey);
VACUUM ANALYZE region, nation, supplier, part, partsupp, customer, orders, lineitem;
