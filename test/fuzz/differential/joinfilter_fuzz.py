#!/usr/bin/python3
# joinfilter_fuzz.py: a differential fuzzer of the runtime join filters
# (doc/join_filters.md).  Random schemas (a fact table, plain or
# partitioned, and dimensions, with keys of random types: integers of
# different widths, numeric, floats, dates, text in the default, "C" and a
# nondeterministic ICU collation, varchar against text; NULL keys and
# duplicates) and random statements of every join type (inner, semi by IN
# and EXISTS, anti, left, right, full, star joins of two dimensions),
# rescans (correlated subqueries and LATERAL, with the parameter on the
# build side or the outer side), prepared statements (custom and generic
# plans) and cursors (FETCH forward and backward).  Each round sets
# work_mem (64kB: the joins spill to several batches) and parallel query at
# random, and lowers the plan-time rule's limits so that most hash joins
# get a filter.  Every statement runs with bloomfilter.join_filter on and
# off and the two multisets of rows (the sequences, for a cursor) must be
# equal; an error that occurs only with the filters on is a finding too.
#
# "fired" counts the statements whose plan with the setting on holds a
# JoinFilterProbe (plain EXPLAIN, or EXPLAIN EXECUTE of a prepared one).
#
# Output: "# ..." lines of progress, each finding with its schema and
# statement, and last a line "SUMMARY queries=N fired=F differences=D
# errors_on_only=E errors_both=B".  Exit status 0 when it ran (findings or
# not), 2 on a failure of the fuzzer itself.  --seed S --round R replays a
# round (the schema and statements depend on the seed and round only).
#
# Python with psycopg2 (Debian's /usr/bin/python3), as the other
# differential fuzzers of test/fuzz/differential/.

import argparse
import os
import random
import sys
import time

import psycopg2

GUC = 'bloomfilter.join_filter'

# (outer column type, inner column type, value of key n, collation DDL)
KEY_TYPES = [
    ('int4', 'int4', lambda r, n: str(n)),
    ('int4', 'int8', lambda r, n: str(n)),
    ('int8', 'int2', lambda r, n: str(n % 30000)),
    ('numeric', 'numeric', lambda r, n: '%d.%d' % (n // 4, n % 4)),
    ('numeric', 'int4', lambda r, n: str(n)),
    ('float8', 'float4', lambda r, n: repr(n / 4.0)),
    ('date', 'date', lambda r, n: "'2000-01-01'::date + %d" % n),
    ('text', 'text', lambda r, n: "'k%d'" % n),
    ('text COLLATE "C"', 'text COLLATE "C"', lambda r, n: "'k%d'" % n),
    ('text COLLATE jf_fuzz_ci', 'text COLLATE jf_fuzz_ci',
     lambda r, n: "'%s%d'" % (r.choice(['k', 'K']), n)),
    ('varchar(20)', 'text', lambda r, n: "'v%d'" % n),
]


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.conn = psycopg2.connect(args.dsn)
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        self.stats = dict(queries=0, fired=0, differences=0, errors_on_only=0, errors_both=0)
        self.shown = 0
        self.cur.execute("SELECT count(*) FROM pg_collation WHERE collname = 'jf_fuzz_ci'")
        if self.cur.fetchone()[0] == 0:
            self.cur.execute("CREATE COLLATION jf_fuzz_ci (provider = icu, "
                             "locale = 'und-u-ks-level2', deterministic = false)")

    # ---- the schema of a round ----

    def values_sql(self, r, table, keytype, nrows, keyrange, null_share):
        rows = []
        for i in range(nrows):
            if r.random() < null_share:
                key = 'NULL'
            else:
                key = keytype(r, r.randrange(keyrange))
            rows.append('(%d, %s, %d, %d)' % (i, key, r.randrange(10), r.randrange(1000)))
        return 'INSERT INTO %s VALUES %s' % (table, ', '.join(rows))

    def make_schema(self, r):
        outer_t, inner_t, keyval = r.choice(KEY_TYPES)
        self.schema = []
        keyrange = r.choice([50, 500, 5000])
        nfact = r.choice([1000, 3000, 8000])
        part = r.random() < 0.3
        ddl = ['DROP TABLE IF EXISTS jff, jfd1, jfd2 CASCADE']
        if part:
            ddl.append('CREATE TABLE jff (id int, k %s, tag int, v int) PARTITION BY RANGE (id)' % outer_t)
            for p in range(3):
                ddl.append('CREATE TABLE jff_%d PARTITION OF jff FOR VALUES FROM (%d) TO (%d)'
                           % (p, p * nfact // 3, (p + 1) * nfact // 3 if p < 2 else nfact + 1))
        else:
            ddl.append('CREATE TABLE jff (id int, k %s, tag int, v int)' % outer_t)
        ddl.append('CREATE TABLE jfd1 (id int, k %s, tag int, v int)' % inner_t)
        ddl.append('CREATE TABLE jfd2 (id int, k %s, tag int, v int)' % outer_t)
        ddl.append(self.values_sql(r, 'jff', keyval, nfact, keyrange, 0.03))
        ddl.append(self.values_sql(r, 'jfd1', keyval, r.choice([10, 100, 1000]),
                                   keyrange * r.choice([1, 2]), 0.05))
        ddl.append(self.values_sql(r, 'jfd2', keyval, r.choice([10, 100]), keyrange, 0.0))
        ddl.append('ANALYZE jff, jfd1, jfd2')
        for s in ddl:
            self.cur.execute(s)
        self.schema = ddl[:-4] + ['-- rows: %d fact, keys below %d, types %s / %s'
                                  % (nfact, keyrange, outer_t, inner_t)]
        self.settings = [
            "SET %s.join_filter_min_outer_rows = 0" % 'bloomfilter',
            "SET bloomfilter.join_filter_max_build_ratio = 1e9",
            # the rule on small hash tables declines most of these joins
            # (their tables are small): off in most schemas, so that the
            # filters fire
            "SET bloomfilter.join_filter_min_hash_bytes = '%s'" % r.choice(['0', '0', '0', '1MB']),
            "SET work_mem = '%s'" % r.choice(['64kB', '64kB', '4MB']),
            "SET enable_mergejoin = %s" % r.choice(['off', 'off', 'on']),
            "SET enable_nestloop = %s" % r.choice(['off', 'on']),
            "SET max_parallel_workers_per_gather = %d" % r.choice([0, 0, 2]),
            "SET parallel_setup_cost = 0",
            "SET parallel_tuple_cost = 0",
            "SET min_parallel_table_scan_size = 0",
            "SET enable_parallel_hash = %s" % r.choice(['on', 'off']),
        ]
        for s in self.settings:
            self.cur.execute(s)

    # ---- statements ----

    def dim_pred(self, r, alias):
        return r.choice(['%s.tag = %d' % (alias, r.randrange(10)),
                         '%s.tag < %d' % (alias, r.randrange(10)),
                         '%s.v < %d' % (alias, r.randrange(1000)),
                         'true'])

    def statement(self, r):
        """A statement: (kind, sql, params list or None)."""
        p1 = self.dim_pred(r, 'd')
        p2 = self.dim_pred(r, 'e')
        fp = r.choice(['true', 'f.v < %d' % r.randrange(1000), 'f.tag <> %d' % r.randrange(10)])
        forms = [
            ('inner', 'SELECT f.id, f.k, d.id FROM jff f JOIN jfd1 d ON f.k = d.k WHERE %s AND %s' % (p1, fp)),
            ('semi_in', 'SELECT f.id FROM jff f WHERE %s AND f.k IN (SELECT d.k FROM jfd1 d WHERE %s)' % (fp, p1)),
            ('semi_exists', 'SELECT f.id FROM jff f WHERE %s AND EXISTS (SELECT FROM jfd1 d WHERE d.k = f.k AND %s)'
             % (fp, p1)),
            ('anti', 'SELECT f.id FROM jff f WHERE NOT EXISTS (SELECT FROM jfd1 d WHERE d.k = f.k AND %s)' % p1),
            ('left', 'SELECT f.id, d.id FROM jff f LEFT JOIN (SELECT * FROM jfd1 d WHERE %s) d ON f.k = d.k' % p1),
            ('right', 'SELECT f.id, d.id FROM jff f RIGHT JOIN (SELECT * FROM jfd1 d WHERE %s) d ON f.k = d.k' % p1),
            ('full', 'SELECT f.id, d.id FROM jff f FULL JOIN (SELECT * FROM jfd1 d WHERE %s) d ON f.k = d.k' % p1),
            ('star', 'SELECT f.id, d.id, e.id FROM jff f JOIN jfd1 d ON f.k = d.k JOIN jfd2 e ON f.k = e.k '
             'WHERE %s AND %s AND %s' % (p1, p2, fp)),
            ('star_agg', 'SELECT d.tag, count(*), sum(f.v) FROM jff f JOIN jfd1 d ON f.k = d.k '
             'JOIN jfd2 e ON f.id %% 50 = e.id WHERE %s AND %s GROUP BY d.tag' % (p1, p2)),
            ('rescan_build', 'SELECT o.x, (SELECT count(*) FROM jff f JOIN jfd1 d ON f.k = d.k '
             'WHERE d.v < o.x AND %s) FROM (VALUES (100), (500), (900), (100)) o(x)' % fp),
            ('rescan_outer', 'SELECT o.x, (SELECT count(*) FROM jff f JOIN jfd1 d ON f.k = d.k '
             'WHERE f.v < o.x AND %s) FROM (VALUES (100), (500), (900), (100)) o(x)' % p1),
            ('lateral', 'SELECT o.x, s.c FROM (VALUES (2), (3), (5), (2)) o(x), LATERAL '
             '(SELECT count(*) c, sum(f.id) FROM jff f JOIN jfd1 d ON f.k = d.k WHERE d.tag %% o.x = 0 AND %s) s'
             % fp),
        ]
        kind, sql = r.choice(forms)
        mode = r.choice(['plain'] * 6 + ['prepared', 'cursor'])
        if mode == 'prepared':
            sql = ('SELECT f.id, d.id FROM jff f JOIN jfd1 d ON f.k = d.k WHERE d.tag < $1 AND f.v < $2')
            kind = 'prepared'
        return kind, mode, sql

    # ---- running a statement both ways ----

    def run_both(self, r, kind, mode, sql):
        """The rows with the setting on and off, and the errors."""
        out = {}
        params = [(r.randrange(11), r.randrange(1001)) for _ in range(4)]
        plan_mode = r.choice(['force_custom_plan', 'force_generic_plan'])
        fetches = [r.choice([1, 5, 50]) for _ in range(4)]
        for on in (True, False):
            try:
                self.cur.execute('SET %s = %s' % (GUC, 'on' if on else 'off'))
                if mode == 'prepared' or kind == 'prepared':
                    rows = self.run_prepared(sql, params, plan_mode)
                elif mode == 'cursor':
                    rows = self.run_cursor(sql, fetches)
                else:
                    self.cur.execute(sql)
                    rows = sorted(map(repr, self.cur.fetchall()))
                out[on] = ('rows', rows)
            except psycopg2.Error as e:
                self.conn.rollback() if not self.conn.autocommit else None
                out[on] = ('error', str(e).strip().split('\n')[0])
                self.reset_connection()
        return out

    def reset_connection(self):
        try:
            self.cur.execute('ROLLBACK')
        except psycopg2.Error:
            pass
        self.cur.execute('DEALLOCATE ALL')
        for s in self.settings:
            self.cur.execute(s)

    def run_prepared(self, sql, params, plan_mode):
        self.cur.execute('DEALLOCATE ALL')
        self.cur.execute('SET plan_cache_mode = %s' % plan_mode)
        self.cur.execute('PREPARE jf_q(int, int) AS ' + sql)
        rows = []
        for a, b in params:
            self.cur.execute('EXECUTE jf_q(%d, %d)' % (a, b))
            rows.append(sorted(map(repr, self.cur.fetchall())))
        self.cur.execute('DEALLOCATE jf_q')
        self.cur.execute('RESET plan_cache_mode')
        return rows

    def run_cursor(self, sql, fetches):
        """FETCHes forward and back, in a total order of every column."""
        self.cur.execute('BEGIN')
        self.cur.execute('DECLARE jf_c SCROLL CURSOR FOR SELECT * FROM (%s) q ORDER BY q' % sql)
        rows = []
        for i, n in enumerate(fetches):
            direction = 'BACKWARD ' if i % 2 else ''
            self.cur.execute('FETCH %s%d FROM jf_c' % (direction, n))
            rows.append(list(map(repr, self.cur.fetchall())))
        self.cur.execute('COMMIT')
        return rows

    def fired(self, kind, mode, sql):
        """True if the plan with the setting on holds a probe."""
        try:
            self.cur.execute('SET %s = on' % GUC)
            if mode == 'prepared' or kind == 'prepared':
                self.cur.execute('PREPARE jf_e(int, int) AS ' + sql)
                self.cur.execute('EXPLAIN (COSTS OFF) EXECUTE jf_e(5, 500)')
                plan = self.cur.fetchall()
                self.cur.execute('DEALLOCATE jf_e')
            else:
                self.cur.execute('EXPLAIN (COSTS OFF) ' + sql)
                plan = self.cur.fetchall()
        except psycopg2.Error:
            self.reset_connection()
            return False
        return any('JoinFilterProbe' in row[0] for row in plan)

    def finding(self, what, rnd, q, kind, mode, sql, out):
        print('# FINDING %s: round %d query %d (%s, %s)' % (what, rnd, q, kind, mode))
        if self.shown < self.args.show or self.args.verbose:
            for s in self.schema:
                print('#   ' + s[:300])
            for s in self.settings:
                print('#   ' + s)
            print('#   ' + sql)
            for on in (True, False):
                print('#   setting %s: %s' % ('on' if on else 'off', str(out[on])[:400]))
            print('#   replay: --seed %s --round %d' % (self.args.seed, rnd))
        self.shown += 1

    def run_round(self, rnd):
        r = random.Random('%s/%d' % (self.args.seed, rnd))
        self.make_schema(r)
        for q in range(self.args.per_round):
            kind, mode, sql = self.statement(r)
            out = self.run_both(r, kind, mode, sql)
            self.stats['queries'] += 1
            if self.fired(kind, mode, sql):
                self.stats['fired'] += 1
            on, off = out[True], out[False]
            if on[0] == 'error' and off[0] == 'error':
                self.stats['errors_both'] += 1
            elif on[0] == 'error':
                self.stats['errors_on_only'] += 1
                self.finding('error only with the filters on', rnd, q, kind, mode, sql, out)
            elif on != out[False]:
                self.stats['differences'] += 1
                self.finding('different rows', rnd, q, kind, mode, sql, out)
            if self.done():
                return

    def done(self):
        if self.args.queries and self.stats['queries'] >= self.args.queries:
            return True
        return bool(self.args.seconds) and time.time() >= self.deadline

    def main(self):
        self.deadline = time.time() + self.args.seconds
        print('# joinfilter fuzz: seed %s' % self.args.seed)
        rounds = [self.args.round] if self.args.round is not None else range(10 ** 9)
        for rnd in rounds:
            self.run_round(rnd)
            print('# round %d: %s' % (rnd, ' '.join('%s=%d' % kv for kv in self.stats.items())))
            sys.stdout.flush()
            if self.args.round is None and self.done():
                break
        self.cur.execute('DROP TABLE IF EXISTS jff, jfd1, jfd2 CASCADE')
        print('SUMMARY ' + ' '.join('%s=%d' % kv for kv in self.stats.items()))


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0] if __doc__ else None)
    p.add_argument('--dsn', default='')
    p.add_argument('--seconds', type=float, default=0)
    p.add_argument('--queries', type=int, default=0)
    p.add_argument('--seed', default=os.environ.get('BLOOM_FUZZ_SEED') or str(random.randrange(10 ** 9)))
    p.add_argument('--round', type=int)
    p.add_argument('--per-round', type=int, default=30)
    p.add_argument('--show', type=int, default=5, help='findings printed in full as they come')
    p.add_argument('--verbose', action='store_true', help='print every finding in full')
    args = p.parse_args()
    if not args.seconds and not args.queries and args.round is None:
        args.seconds = 120
    try:
        Fuzzer(args).main()
    except psycopg2.Error as e:
        print('fuzzer failed: %s' % e, file=sys.stderr)
        sys.exit(2)


if __name__ == '__main__':
    main()
