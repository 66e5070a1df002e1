#!/usr/bin/python3
# summary_fuzz.py: a differential fuzzer of managed summaries
# (doc/summaries.md).  Random partitioned tables with a managed summary,
# random writes of every kind, merges, refreshes and readers with open
# snapshots; every read runs with bloomfilter.enable_summary_pruning on and
# off in the same transaction and the two multisets of rows must be equal,
# and every write that fails is retried with pruning off: an error that
# does not occur then is a spurious error (case 1 of issue 34: a foreign key
# check that pruned away the row it looks for).
#
# Reads: equalities, IN lists, = ANY, LATERAL and correlated lookups, joins,
# prepared statements, and ORs (or_shape: arms of =, IN, = ANY, nested ORs,
# ANDs, a NULL arm, and now and then an arm that fixes nothing, so that the
# whole OR must read every partition); "or_reads" and "or_reads_skipped"
# count the reads under an OR and those that skipped a partition,
# "or_other_reads_skipped" those of the last kind that did (it must be 0).
#
# Rounds: one session writing and reading its own rows, then reads, merges
# and refreshes; several sessions one transaction at a time (nothing
# concurrent: what fails there fails without a race); several sessions
# with transactions left open (writers, a merge left open, refreshes,
# bloom_summaries, readers at READ COMMITTED, REPEATABLE READ and
# SERIALIZABLE holding their snapshots, a commit held in flight).  Keys
# start before 2000-01-01 and below zero; now and then one statement
# writes 70,000 new keys.  Every session sets the writers' merge
# thresholds at random.
#
# Why Python with psycopg2 (Debian's /usr/bin/python3, python3-psycopg2):
# several connections with transactions left open across each other's
# statements, COPY from the client, and a thread to hold one COMMIT in
# flight are short to write with it; test/t/950_clients.pl already runs
# Debian's interpreter the same way.
#
# Concurrency is driven from one thread, one statement at a time over
# several connections: the interleaving is decided by the seed, so a round
# replays exactly, and no other session commits between a read with pruning
# on and the same read with pruning off (so a READ COMMITTED reader compares
# the same committed state too).  Sessions never wait for each other's row
# locks (each writer updates only rows it inserted); lock_timeout turns any
# other wait into an error that is counted, not reported.  A COMMIT held in
# flight (case 4) runs in a thread: with synchronous_standby_names =
# 'nobody' in the server's configuration and synchronous_commit = on in the
# writer's session only, the COMMIT waits after its commit record (in clog)
# and before it leaves the proc array, until pg_cancel_backend ends the
# wait (the commit completes with a WARNING).  The other sessions use
# synchronous_commit = local.
#
# How a skip is counted: each read with pruning on is also run under
# EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) in the same
# transaction (a few hundred rows per table, so it costs little), and the
# read counts as skipping when the plan shows "Partitions Skipped by
# Summary: N of M" or "Scans Skipped by Summary: N of M" with N > 0.
#
# Output: "# ..." lines of progress, one "FINDING ..." block per finding
# with the schema and the statements to replay it (also written to
# --findings FILE), and last a line "STATS {json}".  Exit status 0 when it
# ran (findings or not), 2 on a failure of the fuzzer itself.
#
# Crash rounds are run by the caller (test/t/845_summary_fuzz.pl): a run
# with --state FILE leaves its tables and their row counts there; the
# caller stops the server with an immediate shutdown, starts it, and the
# next run with the same --state first checks that every committed row is
# there and that every key is found with pruning on.

import argparse
import datetime
import io
import json
import random
import re
import sys
import threading
import time
import uuid

import psycopg2
import psycopg2.extensions

GUC = 'bloomfilter.enable_summary_pruning'
TRIGGERS = [True]           # --no-triggers: no row triggers looking up the table
SKIP_RE = re.compile(r'(?:Partitions|Scans) Skipped by Summary: (\d+) of (\d+)')
KEY_TYPES = ['int4', 'int8', 'text', 'date', 'timestamp', 'uuid']
BASE_DATE = datetime.date(2024, 1, 1)         # of the column d
# Keys start just before 2000-01-01 (PostgreSQL's epoch of date and
# timestamp: negative internal values) and below zero for integers.
KEY_DATE = datetime.date(1999, 12, 25)
KEY_TIMESTAMP = datetime.datetime(1999, 12, 31, 18)
KEY_SHIFT = 10
# SQLSTATEs a round may meet without a finding: serialization failures,
# deadlocks, lock timeouts, cancels (the held commit's), statement timeouts.
EXPECTED_STATES = {'40001', '40P01', '55P03', '57014'}


# fz_count: a VOLATILE function a write calls (directly or from the row
# triggers fz_trig); it counts the rows of a key with pruning on and off and
# raises on a difference.
SETUP_SQL = [
r"""
CREATE OR REPLACE FUNCTION fz_count(tbl text, col text, val text, typ text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	q text := format('SELECT count(*) FROM %I WHERE %I = %L::%s', tbl, col, val, typ);
	old text := current_setting('bloomfilter.enable_summary_pruning');
	n_on bigint;
	n_off bigint;
BEGIN
	IF old <> 'on' THEN
		EXECUTE q INTO n_off;
		RETURN n_off;
	END IF;
	EXECUTE q INTO n_on;
	PERFORM set_config('bloomfilter.enable_summary_pruning', 'off', true);
	EXECUTE q INTO n_off;
	PERFORM set_config('bloomfilter.enable_summary_pruning', old, true);
	IF n_on <> n_off THEN
		RAISE EXCEPTION 'bloomfuzz mismatch: % rows of %.% = % with pruning, % without', n_on, tbl, col, val, n_off;
	END IF;
	RETURN n_off;
END $$""",
r"""
CREATE OR REPLACE FUNCTION fz_trig() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM fz_count(TG_ARGV[0], 'k1', NEW.k1::text, TG_ARGV[1]);
	RETURN NEW;
END $$"""]


# ---------------------------------------------------------------- values

def key_literal(typ, n):
    """The SQL literal of key number n (small numbers collide on purpose)."""
    if typ == 'int4':
        return '%d' % (n - KEY_SHIFT)
    if typ == 'int8':
        return '%d::int8' % ((n - KEY_SHIFT) * 1000003 + 7)
    if typ == 'text':
        return "'k%d'" % n
    if typ == 'date':
        return "'%s'::date" % (KEY_DATE + datetime.timedelta(days=n))
    if typ == 'timestamp':
        return "'%s'::timestamp" % (KEY_TIMESTAMP + datetime.timedelta(hours=n))
    if typ == 'uuid':
        return "'%s'::uuid" % uuid.UUID(int=(n * 0x9E3779B97F4A7C15 + 1) % (1 << 128))
    raise ValueError(typ)


def key_copy_text(typ, n):
    """Key number n as COPY's text format writes it."""
    lit = key_literal(typ, n)
    lit = lit.split('::')[0]
    return lit.strip("'")


# ---------------------------------------------------------------- tables

class Table:
    """One partitioned table with a managed summary, and how to write it.

    Columns: id bigint, p int, d date, k1, k2 (the key types), v int.  The
    summary's key columns are k1, or k1 and k2.  The partition key is one
    of p (list), d (range, leaves sub-partitioned, defaults), k1 (hash),
    or p then d (two levels).  FK tables are (k bigint PRIMARY KEY, parent
    bigint REFERENCES itself), hash-partitioned, summarised on k."""

    def __init__(self, rng, name, kind=None):
        self.name = name
        self.kind = kind or rng.choice(['list', 'range', 'hash', 'multi', 'fk', 'range', 'rangek', 'rangek'])
        self.t1 = 'int8' if self.kind == 'fk' else rng.choice(KEY_TYPES)
        if self.kind == 'range' and rng.random() < 0.5:
            self.t1 = 'date'                     # case 5's shape
        if self.kind == 'rangek':
            # ranges over the key itself: types whose order follows n
            self.t1 = rng.choice(['date', 'date', 'int4', 'int8', 'timestamp'])
        self.t2 = rng.choice(KEY_TYPES)
        self.composite = self.kind not in ('fk', 'hash', 'rangek') and rng.random() < 0.3
        self.keys = ['k'] if self.kind == 'fk' else (['k1', 'k2'] if self.composite else ['k1'])
        self.domain = rng.choice([40, 200, 1000])
        self.triggers = self.kind != 'fk' and rng.random() < 0.5 and TRIGGERS[0]
        self.summary_first = rng.random() < 0.5
        # an index on the key: nested loops then rescan parameterized
        # index scans under the summary's guard
        self.indexed = self.kind != 'fk' and rng.random() < 0.6
        self.rows = 0           # committed rows, at the end of a run (crash check)

    # --- DDL
    def ddl(self, rng):
        n = self.name
        out = []
        if self.kind == 'fk':
            out.append('CREATE TABLE %s (k bigint PRIMARY KEY, parent bigint REFERENCES %s (k), v int) '
                       'PARTITION BY HASH (k)' % (n, n))
            for i in range(4):
                out.append('CREATE TABLE %s_h%d PARTITION OF %s FOR VALUES WITH (MODULUS 4, REMAINDER %d)'
                           % (n, i, n, i))
            return out
        cols = 'id bigint NOT NULL, p int NOT NULL, d date NOT NULL, k1 %s, k2 %s, v int' % (self.t1, self.t2)
        if self.kind == 'list':
            out.append('CREATE TABLE %s (%s, PRIMARY KEY (id, p)) PARTITION BY LIST (p)' % (n, cols))
            for i in range(4):
                out.append('CREATE TABLE %s_l%d PARTITION OF %s FOR VALUES IN (%d, %d)' % (n, i, n, 2 * i, 2 * i + 1))
            out.append('CREATE TABLE %s_ldef PARTITION OF %s DEFAULT' % (n, n))
        elif self.kind == 'range':
            out.append('CREATE TABLE %s (%s, PRIMARY KEY (id, d, p)) PARTITION BY RANGE (d)' % (n, cols))
            out += self.range_leaves('r', ["'%s'" % (BASE_DATE + datetime.timedelta(days=30 * i))
                                           for i in range(5)])
        elif self.kind == 'rangek':
            # range partitions of the summary's key column, leaves
            # sub-partitioned, a default partition: PostgreSQL's own run-time
            # pruning and the summary's guard over the same parameter
            out.append('CREATE TABLE %s (%s, PRIMARY KEY (id, k1, p)) PARTITION BY RANGE (k1)' % (n, cols))
            step = max(1, self.domain // 5)
            # the first bound above the smallest keys: those go to the default
            out += self.range_leaves('k', [key_literal(self.t1, step * (i + 1)) for i in range(5)])
        elif self.kind == 'hash':
            out.append('CREATE TABLE %s (%s, PRIMARY KEY (id, k1)) PARTITION BY HASH (k1)' % (n, cols))
            for i in range(4):
                out.append('CREATE TABLE %s_h%d PARTITION OF %s FOR VALUES WITH (MODULUS 4, REMAINDER %d)'
                           % (n, i, n, i))
        elif self.kind == 'multi':
            out.append('CREATE TABLE %s (%s, PRIMARY KEY (id, p, d)) PARTITION BY LIST (p)' % (n, cols))
            for i in range(3):
                out.append('CREATE TABLE %s_m%d PARTITION OF %s FOR VALUES IN (%d, %d, %d) PARTITION BY RANGE (d)'
                           % (n, i, n, 3 * i, 3 * i + 1, 3 * i + 2))
                for j in range(2):
                    lo = BASE_DATE + datetime.timedelta(days=60 * j)
                    hi = BASE_DATE + datetime.timedelta(days=60 * (j + 1))
                    out.append("CREATE TABLE %s_m%d_%d PARTITION OF %s_m%d FOR VALUES FROM ('%s') TO ('%s')"
                               % (n, i, j, n, i, lo, hi))
                out.append('CREATE TABLE %s_m%d_def PARTITION OF %s_m%d DEFAULT' % (n, i, n, i))
            out.append('CREATE TABLE %s_mdef PARTITION OF %s DEFAULT' % (n, n))
        return out

    def range_leaves(self, tag, bounds):
        """Range partitions between consecutive bounds (SQL literals), every
        other one sub-partitioned by list of p with a default, and a
        default partition."""
        n = self.name
        out = []
        for i, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
            leaf = '%s_%s%d' % (n, tag, i)
            if i % 2 == 0:
                out.append('CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%s) TO (%s) PARTITION BY LIST (p)'
                           % (leaf, n, lo, hi))
                out.append('CREATE TABLE %s_a PARTITION OF %s FOR VALUES IN (0, 1, 2, 3, 4)' % (leaf, leaf))
                out.append('CREATE TABLE %s_b PARTITION OF %s DEFAULT' % (leaf, leaf))
            else:
                out.append('CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%s) TO (%s)' % (leaf, n, lo, hi))
        out.append('CREATE TABLE %s_%sdef PARTITION OF %s DEFAULT' % (n, tag, n))
        return out

    def summary_sql(self):
        if len(self.keys) == 1:
            return "SELECT bloom_summary_create('%s', '%s', 5000, 0.01)" % (self.name, self.keys[0])
        return "SELECT bloom_summary_create('%s', ARRAY[%s]::name[], 5000, 0.01)" % (
            self.name, ', '.join("'%s'" % k for k in self.keys))

    def refresh_sql(self):
        return "SELECT bloom_summary_refresh('%s', ARRAY[%s]::name[])" % (
            self.name, ', '.join("'%s'" % k for k in self.keys))

    def merge_sql(self, rng):
        return rng.choice(['SELECT bloom_summary_merge()',
                           "SELECT bloom_summary_merge('%s')" % self.name])

    def trigger_ddl(self):
        """Row triggers that look up the new row's key with pruning on and
        off: names sorting before and after the summary's trigger."""
        out = []
        for name, when in (('a_fz_before', 'BEFORE'), ('a_fz_after', 'AFTER'), ('zz_fz_after', 'AFTER')):
            out.append("CREATE TRIGGER %s %s INSERT OR UPDATE ON %s FOR EACH ROW "
                       "EXECUTE FUNCTION fz_trig('%s', '%s')" % (name, when, self.name, self.name, self.t1))
        return out

    # --- values of a row
    def key(self, rng, fresh=False):
        if fresh:
            return rng.randrange(self.domain, self.domain * 50)
        return rng.randrange(self.domain)

    def row_values(self, rng, ident, k=None):
        """(id, p, d, k1, k2, v) as SQL literals."""
        k = self.key(rng) if k is None else k
        p = rng.randrange(11)
        d = BASE_DATE + datetime.timedelta(days=rng.randrange(-20, 150))
        k2 = self.key(rng)
        return ['%d' % ident, '%d' % p, "'%s'::date" % d, key_literal(self.t1, k),
                key_literal(self.t2, k2), '%d' % rng.randrange(100)]


# ---------------------------------------------------------------- fuzzer

class Finding(Exception):
    pass


class Session:
    """One connection and what it ran."""

    def __init__(self, fz, name, isolation=None):
        self.fz = fz
        self.name = name
        self.conn = psycopg2.connect(fz.dsn, application_name='summary_fuzz_' + name)
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        self.cur.execute("SET synchronous_commit = local")
        self.cur.execute("SET lock_timeout = '1s'")
        self.cur.execute("SET statement_timeout = '60s'")
        # writers' merges at random thresholds; now and then a session
        # that writes delta rows instead of using the shared buffer
        r = fz.rng
        for guc, values in (('summary_merge_check_every', [1, 4, 32]),
                            ('summary_merge_deltas', [2, 16, 128]),
                            ('summary_merge_keys', [100, 2000, 10000]),
                            ('summary_buffer', ['on', 'on', 'on', 'off'])):
            sql = 'SET bloomfilter.%s = %s' % (guc, r.choice(values))
            self.cur.execute(sql)
            fz.settings_lines.append('%s: %s;' % (name, sql))
        self.cur.execute("SELECT pg_backend_pid()")
        self.pid = self.cur.fetchone()[0]
        self.in_tx = False
        self.isolation = isolation
        self.iso = None
        self.snap_ctx = {}

    def run(self, sql, fetch=False, log=True):
        if log:
            self.fz.trace.append('%s: %s;' % (self.name, sql))
        self.cur.execute(sql)
        if fetch:
            return self.cur.fetchall()
        return None

    def begin(self, isolation=None):
        iso = isolation or self.isolation or 'READ COMMITTED'
        self.run('BEGIN ISOLATION LEVEL %s' % iso)
        self.in_tx = True
        self.iso = iso
        self.snap_ctx = dict(self.fz.ctx)

    def end(self, how='COMMIT'):
        if self.in_tx:
            try:
                self.run(how)
            finally:
                self.in_tx = False

    def abort_quietly(self):
        try:
            self.cur.execute('ROLLBACK')
        except psycopg2.Error:
            pass
        self.in_tx = False
        self.fz.trace.append('%s: ROLLBACK;' % self.name)

    def close(self):
        try:
            self.conn.close()
        except psycopg2.Error:
            pass


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.dsn = args.dsn
        self.rng = random.Random(args.seed)
        self.trace = []
        self.settings_lines = []    # each session's settings, head of every trace
        self.schema = {}            # table name -> list of DDL statements
        self.tables = []
        self.next_id = 1
        self.table_no = 0
        self.stats = dict(reads=0, reads_skipped=0, or_reads=0, or_reads_skipped=0,
                          or_other_reads_skipped=0, writes=0, write_statements_retried=0,
                          wrong_results=0, spurious_errors=0, expected_errors=0,
                          invalid_statements=0, rounds=0, concurrent_rounds=0, serial_rounds=0,
                          held_commits=0, held_commits_not_held=0, crash_checks=0, crash_keys_checked=0,
                          crash_rows_missing=0, merges=0, refreshes=0, tables=0)
        self.findings = []
        self.by_case = {}
        # what the current round has done, for telling the cases apart
        self.ctx = dict(round='single', merge_open=False, held=False, held_in_round=False)
        self.admin = None

    # --- findings
    def finding(self, kind, what, table=None, case='?'):
        self.stats['wrong_results' if kind == 'wrong result' else 'spurious_errors'] += 1
        self.by_case[case] = self.by_case.get(case, 0) + 1
        self.findings.append(case)
        if self.by_case[case] > self.args.print_per_case:
            print('FINDING %d: case %s: %s: %s (%s)' % (len(self.findings), case, kind, what[:300],
                                                       table.name if table else ''), flush=True)
            if self.args.stop_on_finding:
                raise Finding(what)
            return
        lines = ['FINDING %d: case %s: %s: %s' % (len(self.findings), case, kind, what),
                 '  seed %d, round %d, table %s' % (self.args.seed, self.stats['rounds'],
                                                    table.name if table else '')]
        if table is not None:
            lines.append('  -- schema')
            lines += ['  %s;' % s for s in self.schema.get(table.name, [])]
        lines.append('  -- statements of the table since its creation (session: statement)')
        tail = self.trace[-self.args.trace_lines:]
        if len(self.trace) > len(tail):
            lines.append('  -- (%d earlier statements left out)' % (len(self.trace) - len(tail)))
        lines += ['  ' + t for t in tail]
        text = '\n'.join(lines)
        print(text, flush=True)
        if self.args.findings:
            with open(self.args.findings, 'a') as f:
                f.write('\n'.join(lines[:lines.index('  -- statements of the table since its creation (session: statement)') + 1]
                                  + ['  ' + x for x in self.trace]) + '\n\n')
        if self.args.stop_on_finding:
            raise Finding(what)

    # --- reads
    def read_shapes(self, t, keys):
        """(label, SQL with pruning possible) over key numbers."""
        rng = self.rng
        lit = lambda k, typ=None: key_literal(typ or t.t1, k)
        k1 = t.keys[0]
        cols = 'k, parent, v' if t.kind == 'fk' else 'id, p, d, k1, k2, v'
        k = keys[0]
        shapes = []
        shapes.append(('eq', 'SELECT %s FROM %s WHERE %s = %s' % (cols, t.name, k1, lit(k))))
        shapes.append(('in', 'SELECT %s FROM %s WHERE %s IN (%s)' % (
            cols, t.name, k1, ', '.join(lit(x) for x in keys))))
        shapes.append(('any', 'SELECT %s FROM %s WHERE %s = ANY (ARRAY[%s])' % (
            cols, t.name, k1, ', '.join(lit(x) for x in keys))))
        shapes.append(('lateral', 'SELECT v.k, x.* FROM (VALUES %s) v(k), LATERAL (SELECT %s FROM %s x '
                       'WHERE x.%s = v.k OFFSET 0) x' % (
                           ', '.join('(%s)' % lit(x) for x in keys), cols, t.name, k1)))
        shapes.append(('corr', 'SELECT v.k, (SELECT count(*) FROM %s x WHERE x.%s = v.k) FROM (VALUES %s) v(k)' % (
            t.name, k1, ', '.join('(%s)' % lit(x) for x in keys))))
        shapes.append(('join', 'SELECT a.%s, b.* FROM (SELECT DISTINCT %s FROM %s WHERE %s = %s) a '
                       'JOIN %s b ON b.%s = a.%s' % (k1, k1, t.name, k1, lit(k), t.name, k1, k1)))
        shapes.append(self.or_shape(t, keys, cols))
        if len(t.keys) == 2:
            k2 = rng.randrange(t.domain)
            shapes.append(('composite', 'SELECT %s FROM %s WHERE k1 = %s AND k2 = %s' % (
                cols, t.name, lit(k), lit(k2, t.t2))))
            shapes.append(('k2', 'SELECT %s FROM %s WHERE k2 = %s' % (cols, t.name, lit(k2, t.t2))))
        return shapes

    def or_shape(self, t, keys, cols):
        """(label, SQL) of a read under an OR: forms that fix k1 (prune as
        IN does: =, IN, = ANY, nested ORs, ANDs holding one, a NULL arm),
        and forms with an arm that does not (read every partition)."""
        rng = self.rng
        lit = lambda k, typ=None: key_literal(typ or t.t1, k)
        k1 = t.keys[0]
        # a column that is no key (an fk table has k and parent only)
        other_col = 'parent' if t.kind == 'fk' else 'v'
        arms = []
        for x in keys + ([t.key(rng)] if len(keys) == 1 else []):
            form = rng.choice(['eq', 'eq', 'in', 'any', 'and'])
            if form == 'eq':
                arms.append('%s = %s' % (k1, lit(x)) if rng.random() < 0.8
                            else '%s = %s' % (lit(x), k1))
            elif form == 'in':
                arms.append('%s IN (%s, %s)' % (k1, lit(x), lit(t.key(rng))))
            elif form == 'any':
                arms.append('%s = ANY (ARRAY[%s])' % (k1, lit(x)))
            else:
                arms.append('(%s = %s AND %s < %d)' % (k1, lit(x), other_col, rng.randrange(100)))
        label = 'or'
        r = rng.random()
        if r < 0.15:
            arms.append('%s = NULL' % k1)
            label = 'or-null'
        elif r < 0.3 and len(arms) > 2:
            arms = ['(%s OR %s)' % (arms[0], arms[1])] + arms[2:]
            label = 'or-nested'
        elif r < 0.45 and len(t.keys) == 2:
            arms = ['(%s AND k2 = %s)' % (a, lit(t.key(rng), t.t2)) for a in arms]
            label = 'or-composite'
        elif r < 0.65:
            other = rng.choice(['%s = %d' % (other_col, rng.randrange(100)),
                                '%s > %s' % (k1, lit(t.key(rng))), '%s IS NULL' % k1,
                                '%s IS NULL' % other_col])
            arms.insert(rng.randrange(len(arms) + 1), other)
            label = 'or-other'
        rng.shuffle(arms)
        return label, 'SELECT %s FROM %s WHERE %s' % (cols, t.name, ' OR '.join(arms))

    def pick_keys(self, t, hot):
        n = self.rng.choice([1, 2, 3, 6])
        out = []
        for _ in range(n):
            r = self.rng.random()
            if hot and r < 0.6:
                out.append(self.rng.choice(hot))
            elif r < 0.85:
                out.append(t.key(self.rng))
            else:
                out.append(t.key(self.rng, fresh=True))
        return out

    def one_read(self, s, t, keys, label_prefix=''):
        """A read with pruning on and off in the session's transaction;
        counts it; a difference is a finding."""
        own_tx = not s.in_tx
        if own_tx:
            s.begin(self.rng.choice(['READ COMMITTED', 'REPEATABLE READ', 'SERIALIZABLE']))
        try:
            shape = self.rng.choice(self.read_shapes(t, keys) + ['prepared'])
            if shape == 'prepared':
                on, off, skipped, label = self.prepared_read(s, t, keys)
            else:
                label, sql = shape
                nl = label in ('lateral', 'corr') and self.rng.random() < 0.7
                if nl:
                    s.run('SET LOCAL enable_hashjoin = off')
                    s.run('SET LOCAL enable_mergejoin = off')
                    if self.rng.random() < 0.5:
                        s.run('SET LOCAL enable_seqscan = off')
                        s.run('SET LOCAL enable_bitmapscan = %s' % self.rng.choice(['on', 'off']))
                s.run('SET LOCAL %s = on' % GUC)
                on = sorted(map(repr, s.run(sql, fetch=True)))
                plan = s.run('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' + sql, fetch=True, log=False)
                skipped = sum(int(m.group(1)) for row in plan for m in SKIP_RE.finditer(row[0]))
                s.run('SET LOCAL %s = off' % GUC)
                off = sorted(map(repr, s.run(sql, fetch=True)))
                s.run('SET LOCAL %s = on' % GUC)
            self.stats['reads'] += 1
            if skipped:
                self.stats['reads_skipped'] += 1
            if label.startswith(('or', 'prepared-or')):
                self.stats['or_reads'] += 1
                self.stats['or_reads_skipped'] += 1 if skipped else 0
            if label == 'or-other' and skipped:
                # an arm fixes nothing: the summary must decline the OR
                self.stats['or_other_reads_skipped'] += 1
            if on != off:
                missing = [r for r in off if r not in on]
                extra = [r for r in on if r not in off]
                self.finding('wrong result', '%s%s read on %s (%s, %s): %d rows with pruning, %d without; '
                             'missing %s, extra %s' % (label_prefix, label, t.name, s.name, s.iso, len(on), len(off),
                                                      missing[:6], extra[:6]), t, case=self.read_case(s, label_prefix))
        finally:
            if own_tx and s.in_tx:
                s.end('COMMIT')

    def read_case(self, s, prefix):
        """Which case of issue 34 a wrong read looks like, from what the
        round had done when the reader took its snapshot.  A wrong read
        taints the table (its summary may have lost a key for good): the
        next round starts on a new table, and a later wrong read of the same
        table is not told apart."""
        c = self.ctx
        t = self.current
        if getattr(t, 'tainted', False):
            return 'after an earlier finding on the table'
        t.tainted = True
        if prefix.startswith('own-rows'):
            return '2 (own rows, later statement)'
        if c['round'] == 'single':
            return '5 (no concurrency)'
        if c['held_in_round']:
            return '4 (commit held in flight in the round)'
        if s.snap_ctx.get('merge_open') or c['merge_open']:
            return '3 (snapshot across an open merge)'
        return 'concurrent, other'

    def prepared_read(self, s, t, keys):
        mode = self.rng.choice(['auto', 'force_generic_plan', 'force_custom_plan'])
        name = 'fzq%d' % self.rng.randrange(1 << 30)
        k1 = t.keys[0]
        typ = t.t1
        s.run('SET LOCAL plan_cache_mode = %s' % mode)
        s.run('SET LOCAL %s = on' % GUC)
        # under an OR: two parameters, or a parameter and a constant
        form = self.rng.choice(['eq', 'eq', 'or2', 'or-const'])
        if form == 'eq':
            s.run('PREPARE %s(%s) AS SELECT * FROM %s WHERE %s = $1' % (name, typ, t.name, k1))
        elif form == 'or2':
            s.run('PREPARE %s(%s, %s) AS SELECT * FROM %s WHERE %s = $1 OR %s = $2' % (
                name, typ, typ, t.name, k1, k1))
        else:
            s.run('PREPARE %s(%s) AS SELECT * FROM %s WHERE %s = $1 OR %s IN (%s)' % (
                name, typ, t.name, k1, k1, key_literal(typ, t.key(self.rng))))
        args = lambda ks: ', '.join(key_literal(typ, k) if k is not None else 'NULL'
                                    for k in (ks if form == 'or2' else ks[:1]))
        second = lambda: self.rng.choice([t.key(self.rng), keys[-1], None])
        try:
            # auto makes a generic plan after five custom ones
            for k in [t.key(self.rng) for _ in range(5)]:
                s.run('EXECUTE %s(%s)' % (name, args([k, second()])))
            lit = args([keys[0], second()])
            on = sorted(map(repr, s.run('EXECUTE %s(%s)' % (name, lit), fetch=True)))
            plan = s.run('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE %s(%s)' % (name, lit),
                         fetch=True, log=False)
            skipped = sum(int(m.group(1)) for row in plan for m in SKIP_RE.finditer(row[0]))
            s.run('SET LOCAL %s = off' % GUC)
            off = sorted(map(repr, s.run('EXECUTE %s(%s)' % (name, lit), fetch=True)))
            s.run('SET LOCAL %s = on' % GUC)
        finally:
            s.run('DEALLOCATE %s' % name)
        return on, off, skipped, ('prepared/' if form == 'eq' else 'prepared-or/') + mode

    # --- writes
    def new_id(self):
        i = self.next_id
        self.next_id += 1
        return i

    def write_statement(self, s, t, owned, hot):
        """A random write into t as (kind, SQL or COPY text).  owned: ids
        this session inserted (may be updated without waiting for another
        session).  Appends the new keys to hot."""
        rng = self.rng
        if t.kind == 'fk':
            return self.fk_write(t, hot)
        kind = rng.choice(['values', 'select', 'copy', 'update', 'conflict', 'merge', 'cte', 'volatile',
                           'values', 'select'])
        if rng.random() < self.args.bulk_share and t.t1 != 'uuid':
            kind = 'bulk'
        if kind == 'bulk':
            # more keys than a backend buffers (65,536): written as a delta
            # during the statement; the keys are distinct and new, and the
            # earliest and latest of them are read later
            n = 70000
            first = self.next_id
            self.next_id += n
            base = t.domain * 100 + first
            hot.extend([base, base + 1, base + 7, base + 4095, base + 65535, base + 65536, base + n - 1])
            return kind, ("INSERT INTO %s SELECT g, g %% 11, DATE '%s' + (g %% 170 - 20), %s, %s, g %% 100 "
                          "FROM generate_series(%d, %d) g" % (
                              t.name, BASE_DATE, self.key_expr(t.t1, 'g - %d + %d' % (first, base)),
                              key_literal(t.t2, 1), first, first + n - 1))
        if kind in ('update', 'conflict') and not owned:
            kind = 'values'
        if kind == 'values':
            rows = []
            for _ in range(rng.choice([1, 2, 5, 20])):
                k = t.key(rng)
                hot.append(k)
                i = self.new_id()
                owned.append(i)
                rows.append('(%s)' % ', '.join(t.row_values(rng, i, k)))
            return kind, 'INSERT INTO %s VALUES %s' % (t.name, ', '.join(rows))
        if kind in ('select', 'volatile'):
            n = rng.choice([3, 10, 300]) if kind == 'select' else 3
            first = self.next_id
            self.next_id += n
            owned.extend(range(first, first + n))
            k = t.key(rng)
            hot.append(k)
            if kind == 'volatile':
                # every row has the same key; the function looks it up
                # (with pruning on and off) while the statement inserts
                kexpr = key_literal(t.t1, k)
                v = "fz_count('%s', 'k1', (%s)::text, '%s')::int" % (t.name, kexpr, t.t1)
            else:
                kexpr = self.key_expr(t.t1, 'g %% %d' % t.domain) if rng.random() < 0.5 else key_literal(t.t1, k)
                v = 'g % 100'
            return kind, ("INSERT INTO %s SELECT g, g %% 11, DATE '%s' + (g %% 170 - 20), %s, %s, %s "
                          "FROM generate_series(%d, %d) g" % (
                              t.name, BASE_DATE, kexpr, key_literal(t.t2, k), v, first, first + n - 1))
        if kind == 'copy':
            buf = io.StringIO()
            for _ in range(rng.choice([1, 5, 50])):
                k = t.key(rng)
                hot.append(k)
                i = self.new_id()
                owned.append(i)
                d = BASE_DATE + datetime.timedelta(days=rng.randrange(-20, 150))
                buf.write('%d\t%d\t%s\t%s\t%s\t%d\n' % (i, rng.randrange(11), d, key_copy_text(t.t1, k),
                                                      key_copy_text(t.t2, t.key(rng)), rng.randrange(100)))
            return kind, buf.getvalue()
        if kind == 'update':
            ids = rng.sample(owned, min(len(owned), rng.choice([1, 3])))
            k = t.key(rng)
            hot.append(k)
            sets = rng.choice(['k1 = %s' % key_literal(t.t1, k),
                               'p = (p + %d) %% 11' % rng.randrange(1, 11),
                               "d = d + %d, k1 = %s" % (rng.randrange(-40, 40), key_literal(t.t1, k)),
                               'v = v + 1'])
            if len(t.keys) == 2 and rng.random() < 0.5:
                sets += ', k2 = %s' % key_literal(t.t2, t.key(rng))
            return kind, 'UPDATE %s SET %s WHERE id IN (%s)' % (t.name, sets, ', '.join(map(str, ids)))
        if kind == 'conflict':
            ids = rng.sample(owned, min(len(owned), 3))
            k = t.key(rng)
            hot.append(k)
            conflict = {'list': 'id, p', 'range': 'id, d, p', 'hash': 'id, k1', 'multi': 'id, p, d',
                        'rangek': 'id, k1, p'}[t.kind]
            upd = 'v = EXCLUDED.v + 1' if t.kind in ('hash', 'rangek') else 'k1 = %s' % key_literal(t.t1, k)
            i = self.new_id()
            owned.append(i)
            k2 = t.key(rng)
            hot.append(k2)
            return kind, ('INSERT INTO %s SELECT id, p, d, k1, k2, v FROM %s WHERE id IN (%s) '
                          'UNION ALL VALUES (%s) ON CONFLICT (%s) DO UPDATE SET %s' % (
                              t.name, t.name, ', '.join(map(str, ids)),
                              ', '.join(t.row_values(rng, i, k2)), conflict, upd))
        if kind == 'merge':
            rows = []
            used = set()
            for _ in range(rng.choice([1, 3])):
                k = t.key(rng)
                hot.append(k)
                if owned and rng.random() < 0.5 and len(used) < len(owned):
                    i = rng.choice([x for x in owned[-50:] if x not in used] or [self.new_id()])
                else:
                    i = self.new_id()
                    owned.append(i)
                used.add(i)
                rows.append('(%s)' % ', '.join(t.row_values(rng, i, k)))
            upd = 'v = s.v' if t.kind in ('hash', 'rangek') else 'k1 = s.k1, v = s.v'
            return kind, ('MERGE INTO %s t USING (VALUES %s) s(id, p, d, k1, k2, v) ON t.id = s.id '
                          'WHEN MATCHED THEN UPDATE SET %s '
                          'WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.p, s.d, s.k1, s.k2, s.v)' % (
                              t.name, ', '.join(rows), upd))
        if kind == 'cte':
            i, j = self.new_id(), self.new_id()
            owned += [i, j]
            k = t.key(rng)
            hot.append(k)
            return kind, ('WITH w AS (INSERT INTO %s VALUES (%s) RETURNING *) '
                          'INSERT INTO %s SELECT %d, p, d, k1, k2, v + 1 FROM w' % (
                              t.name, ', '.join(t.row_values(rng, i, k)), t.name, j))
        raise AssertionError(kind)

    @staticmethod
    def key_expr(typ, n):
        """SQL expression of key number n (an SQL integer expression),
        equal to key_literal(typ, n)."""
        if typ == 'int4':
            return '((%s) - %d)::int4' % (n, KEY_SHIFT)
        if typ == 'int8':
            return '(((%s) - %d)::int8 * 1000003 + 7)' % (n, KEY_SHIFT)
        if typ == 'text':
            return "('k' || (%s))" % n
        if typ == 'date':
            return "(DATE '%s' + (%s)::int)" % (KEY_DATE, n)
        if typ == 'timestamp':
            return "(TIMESTAMP '%s' + (%s) * interval '1 hour')" % (KEY_TIMESTAMP, n)
        if typ == 'uuid':
            # not the literal's mapping: a key of its own, still a uuid
            return "md5((%s)::text)::uuid" % n
        raise ValueError(typ)

    def fk_write(self, t, hot):
        rng = self.rng
        i = self.new_id()
        kind = rng.choice(['self', 'pair', 'chain', 'child'])
        if kind == 'self':
            hot.append(i)
            return 'fk-' + kind, 'INSERT INTO %s VALUES (%d, %d, 1)' % (t.name, i, i)
        if kind == 'pair':
            j = self.new_id()
            hot += [i, j]
            return 'fk-' + kind, 'INSERT INTO %s VALUES (%d, %d, 1), (%d, NULL, 2)' % (t.name, j, i, i)
        if kind == 'chain':
            n = rng.choice([2, 5])
            self.next_id += n
            hot += list(range(i, i + n + 1))
            return 'fk-' + kind, ('INSERT INTO %s SELECT g, CASE WHEN g = %d THEN NULL ELSE g - 1 END, 3 '
                                  'FROM generate_series(%d, %d) g' % (t.name, i, i, i + n))
        parent = rng.choice(t.fk_keys) if getattr(t, 'fk_keys', None) else None
        hot.append(i)
        return 'fk-' + kind, 'INSERT INTO %s VALUES (%d, %s, 4)' % (
            t.name, i, 'NULL' if parent is None else '%d' % parent)

    def do_write(self, s, t, owned, hot):
        """Runs one write in s's open transaction, under a savepoint; an
        error is retried with pruning off: if it then succeeds, the error
        was spurious."""
        kind, sql = self.write_statement(s, t, owned, hot)
        s.run('SAVEPOINT fz')
        try:
            self.exec_write(s, t, kind, sql)
        except psycopg2.Error as e:
            s.run('ROLLBACK TO SAVEPOINT fz')
            msg = str(e).strip().replace('\n', ' ')
            if e.pgcode in EXPECTED_STATES:
                self.stats['expected_errors'] += 1
                raise
            mismatch = 'bloomfuzz mismatch' in msg
            if mismatch:
                self.finding('wrong result', 'inside a %s write (%s): %s' % (kind, s.name, msg), t,
                             case='2 (in the writing statement)')
            self.stats['write_statements_retried'] += 1
            s.run('SET LOCAL %s = off' % GUC)
            try:
                self.exec_write(s, t, kind, sql)
            except psycopg2.Error as e2:
                s.run('ROLLBACK TO SAVEPOINT fz')
                self.stats['invalid_statements'] += 1
                print('# invalid statement (fails with pruning off too): %s\n#   %s' % (
                    sql[:300], str(e2).strip().replace('\n', ' ')), flush=True)
                return
            finally:
                s.run('SET LOCAL %s = on' % GUC)
            if not mismatch:
                self.finding('spurious error', '%s write (%s) fails with pruning on, succeeds with it off: %s'
                             % (kind, s.name, msg), t,
                             case='1 (foreign key)' if t.kind == 'fk' else '1/2 (error in the writing statement)')
        s.run('RELEASE SAVEPOINT fz')
        self.stats['writes'] += 1

    def exec_write(self, s, t, kind, sql):
        if kind == 'copy':
            s.fz.trace.append('%s: COPY %s FROM STDIN;\n%s\\.' % (s.name, t.name, sql))
            s.cur.copy_expert('COPY %s FROM STDIN' % t.name, io.StringIO(sql))
        else:
            s.run(sql)

    # --- tables
    def new_table(self, kind=None):
        self.table_no += 1
        t = Table(self.rng, 'fz%d_%d' % (self.args.seed % 100000, self.table_no), kind)
        t.fk_keys = []
        self.trace = list(self.settings_lines)
        stmts = t.ddl(self.rng)
        a = self.admin
        for sql in stmts:
            a.run(sql)
        if getattr(t, 'indexed', False):
            sql = 'CREATE INDEX ON %s (k1)' % t.name
            a.run(sql)
            stmts.append(sql)
        if t.triggers:
            for sql in t.trigger_ddl():
                a.run(sql)
                stmts.append(sql)
        hot = []
        if t.summary_first:
            a.run(t.summary_sql())
            stmts.append(t.summary_sql())
        a.begin()
        for _ in range(self.rng.choice([1, 3, 6])):
            self.do_write(a, t, [], hot)
        a.end()
        if not t.summary_first:
            a.run(t.summary_sql())
            stmts.append(t.summary_sql())
        self.schema[t.name] = stmts
        if t.kind == 'fk':
            t.fk_keys = hot[:]
        self.tables.append(t)
        self.stats['tables'] += 1
        return t

    def setup(self):
        a = self.admin
        a.run('CREATE EXTENSION IF NOT EXISTS bloomfilter')
        for sql in SETUP_SQL:
            a.run(sql)

    # --- rounds
    def single_round(self, t):
        """One session: a transaction of writes and reads of its own rows,
        then reads, merges and refreshes."""
        s = self.sessions['S']
        self.ctx = dict(round='single', merge_open=False, held=False, held_in_round=False)
        hot = []
        owned = t.owned.setdefault('S', [])
        s.begin(self.rng.choice(['READ COMMITTED', 'REPEATABLE READ']))
        committed = False
        try:
            for _ in range(self.rng.choice([1, 2, 4])):
                self.do_write(s, t, owned, hot)
                if self.rng.random() < 0.5:
                    self.one_read(s, t, self.pick_keys(t, hot), 'own-rows ')
            committed = self.rng.random() < 0.9
            s.end('COMMIT' if committed else 'ROLLBACK')
        except psycopg2.Error as e:
            committed = False
            self.note_error(s, e)
        if t.kind == 'fk' and committed:
            t.fk_keys += hot
        for _ in range(self.rng.choice([2, 4, 8])):
            r = self.rng.random()
            try:
                if r < 0.1:
                    self.sessions['M'].run(t.merge_sql(self.rng))
                    self.stats['merges'] += 1
                elif r < 0.15:
                    self.sessions['M'].run(t.refresh_sql())
                    self.stats['refreshes'] += 1
                elif r < 0.2:
                    self.sessions['M'].run('SELECT * FROM bloom_summaries')
                else:
                    self.one_read(self.sessions['R1'], t, self.pick_keys(t, hot))
            except psycopg2.Error as e:
                self.note_error(self.sessions['M'], e)

    def note_error(self, s, e):
        if e.pgcode in EXPECTED_STATES or (e.pgcode and e.pgcode.startswith('40')):
            self.stats['expected_errors'] += 1
            s.abort_quietly()
            return
        if isinstance(e, Finding):
            raise e
        s.abort_quietly()
        msg = str(e).strip().replace('\n', ' ')
        if 'bloomfuzz mismatch' in msg:
            self.finding('wrong result', msg, self.current, case='2 (in the writing statement)')
        else:
            self.stats['invalid_statements'] += 1
            print('# unexpected error in %s: %s' % (s.name, msg), flush=True)

    def concurrent_round(self, t, serial=False):
        """Writers, an open merge, refreshes and readers holding snapshots,
        interleaved by the seed; optionally one commit held in flight.
        serial: the same sessions, but every transaction ends before the
        next step (no concurrency: what fails then is case 5's kind)."""
        rng = self.rng
        S = self.sessions
        hot = list(rng.sample(range(t.domain), 3))
        writers = ['W1', 'W2']
        readers = {'R1': 'READ COMMITTED', 'R2': 'REPEATABLE READ', 'R3': 'SERIALIZABLE', 'R4': 'REPEATABLE READ'}
        held = None
        steps = rng.randrange(8, 28)
        self.stats['serial_rounds' if serial else 'concurrent_rounds'] += 1
        self.ctx = dict(round='single' if serial else 'concurrent', merge_open=False, held=False,
                        held_in_round=False)
        use_held = not serial and rng.random() < self.args.held_share
        for step in range(steps):
            a = rng.random()
            try:
                if a < 0.35:
                    w = rng.choice(writers)
                    s = S[w]
                    if not s.in_tx:
                        s.begin()
                    self.do_write(s, t, t.owned.setdefault(w, []), hot)
                    if rng.random() < 0.6 or serial:
                        s.end('COMMIT')
                elif a < 0.42:
                    s = S['M']
                    if s.in_tx:
                        s.end('COMMIT')
                        self.ctx['merge_open'] = False
                    else:
                        s.begin()
                        s.run(t.merge_sql(rng))
                        self.stats['merges'] += 1
                        self.ctx['merge_open'] = True
                        if rng.random() < 0.3 or serial:
                            s.end('COMMIT')
                            self.ctx['merge_open'] = False
                elif a < 0.47:
                    s = S['F']
                    s.run(t.refresh_sql())
                    self.stats['refreshes'] += 1
                elif a < 0.52:
                    S['X'].run('SELECT * FROM bloom_summaries')
                elif a < 0.57 and use_held and held is None:
                    s = S['H']
                    held = self.hold_commit(t, hot)
                elif a < 0.60 and held is not None:
                    self.release(held)
                    held = None
                else:
                    r = rng.choice(list(readers))
                    s = S[r]
                    if not s.in_tx:
                        s.begin(readers[r])
                    self.one_read(s, t, self.pick_keys(t, hot))
                    if rng.random() < 0.25 or serial:
                        s.end('COMMIT')
            except psycopg2.Error as e:
                self.note_error(s, e)
        # end of the round: everything commits, then every reader still
        # open reads once more, then fresh reads
        if held is not None:
            self.release(held)
        for name in writers + ['M']:
            try:
                S[name].end('COMMIT')
            except psycopg2.Error as e:
                self.note_error(S[name], e)
        for r in readers:
            s = S[r]
            try:
                if s.in_tx:
                    self.one_read(s, t, self.pick_keys(t, hot))
                    s.end('COMMIT')
            except psycopg2.Error as e:
                self.note_error(s, e)
        for _ in range(3):
            try:
                self.one_read(S['R1'], t, self.pick_keys(t, hot))
            except psycopg2.Error as e:
                self.note_error(S['R1'], e)

    def hold_commit(self, t, hot):
        """A writer whose COMMIT stays in flight (committed in clog, still
        in the proc array) until release()."""
        s = self.sessions['H']
        s.begin()
        self.do_write(s, t, t.owned.setdefault('H', []), hot)
        s.run('SET LOCAL synchronous_commit = on')
        result = {}

        def commit():
            try:
                s.cur.execute('COMMIT')
            except psycopg2.Error as e:
                result['error'] = e
        self.trace.append('H: COMMIT;   -- held in flight by synchronous_standby_names')
        th = threading.Thread(target=commit)
        th.start()
        # wait until the backend waits for sync rep
        deadline = time.time() + 10
        while time.time() < deadline:
            rows = self.sessions['X'].run("SELECT wait_event FROM pg_stat_activity WHERE pid = %d" % s.pid,
                                          fetch=True, log=False)
            if rows and rows[0][0] == 'SyncRep':
                self.stats['held_commits'] += 1
                break
            if not th.is_alive():
                self.stats['held_commits_not_held'] += 1
                break
            time.sleep(0.005)
        self.ctx['held'] = self.ctx['held_in_round'] = True
        return (s, th, result)

    def release(self, held):
        s, th, result = held
        self.trace.append('X: SELECT pg_cancel_backend(<pid of H>);   -- the held commit completes')
        self.sessions['X'].run('SELECT pg_cancel_backend(%d)' % s.pid, log=False)
        th.join(30)
        s.in_tx = False
        self.ctx['held'] = False

    # --- crash check
    def crash_check(self, state):
        """After a restart: every committed row is there, every key is found
        with pruning on, before and after a merge."""
        S = self.sessions
        for td in state['tables']:
            t = Table.__new__(Table)
            t.__dict__.update(td)
            self.tables.append(t)
            self.schema[t.name] = td.get('schema', [])
            self.trace = []
            n = S['R1'].run('SELECT count(*) FROM %s' % t.name, fetch=True)[0][0]
            if n < t.rows:
                self.stats['crash_rows_missing'] += t.rows - n
                self.finding('wrong result', 'after a crash %s has %d rows, %d were committed' % (t.name, n, t.rows), t,
                             case='crash')
            keycol = t.keys[0]
            for phase in ('before merge', 'after merge'):
                # every key, or a sample of 3,000 (the same one each time)
                keys = [r[0] for r in S['R1'].run(
                    'SELECT k FROM (SELECT DISTINCT %s::text AS k FROM %s) s ORDER BY md5(k) LIMIT 3000'
                    % (keycol, t.name), fetch=True, log=False)]
                for chunk in range(0, len(keys), 200):
                    part = keys[chunk:chunk + 200]
                    arr = 'ARRAY[%s]::%s[]' % (', '.join("'%s'" % k.replace("'", "''") for k in part), t.t1)
                    sql = ('SELECT v.k, (SELECT count(*) FROM %s x WHERE x.%s = v.k) FROM unnest(%s) v(k)'
                           % (t.name, keycol, arr))
                    s = S['R1']
                    s.begin('REPEATABLE READ')
                    s.run('SET LOCAL enable_hashjoin = off')
                    on = s.run(sql, fetch=True)
                    s.run('SET LOCAL %s = off' % GUC)
                    off = s.run(sql, fetch=True)
                    s.end()
                    self.stats['crash_keys_checked'] += len(part)
                    if sorted(on) != sorted(off):
                        self.finding('wrong result', 'after a crash (%s) keys of %s not found: %s' % (
                            phase, t.name, [a for a, b in zip(sorted(on), sorted(off)) if a != b][:6]), t, case='crash')
                if phase == 'before merge':
                    S['M'].run('SELECT bloom_summary_merge()')
            t.owned = {}
        self.stats['crash_checks'] += 1

    def save_state(self):
        S = self.sessions
        out = []
        for t in self.tables:
            t.rows = S['R1'].run('SELECT count(*) FROM %s' % t.name, fetch=True, log=False)[0][0]
            d = {k: v for k, v in t.__dict__.items() if k not in ('owned', 'fk_keys')}
            d['fk_keys'] = t.fk_keys[-200:] if getattr(t, 'fk_keys', None) else []
            d['schema'] = self.schema.get(t.name, [])
            out.append(d)
        with open(self.args.state, 'w') as f:
            json.dump({'tables': out, 'next_id': self.next_id, 'table_no': self.table_no}, f)

    # --- main loop
    SESSIONS = ['A', 'S', 'W1', 'W2', 'M', 'F', 'X', 'R1', 'R2', 'R3', 'R4', 'H']

    def connect_all(self):
        """New connections for every session: a table's statements then
        replay alone (backend state such as the writer's merge-check count
        starts afresh, as in summary_replay.py)."""
        for s in getattr(self, 'sessions', {}).values():
            s.close()
        self.settings_lines = []
        self.sessions = {n: Session(self, n) for n in self.SESSIONS}
        self.admin = self.sessions['A']

    def run(self):
        self.connect_all()
        self.setup()
        state = None
        if self.args.state:
            try:
                with open(self.args.state) as f:
                    state = json.load(f)
            except FileNotFoundError:
                state = None
        if state:
            self.next_id = state['next_id']
            self.table_no = state['table_no']
            self.crash_check(state)
        kinds = self.args.kinds.split(',') if self.args.kinds else None
        deadline = time.time() + self.args.seconds
        self.current = None
        rounds_on_table = 0
        while time.time() < deadline:
            if (self.current is None or rounds_on_table >= self.args.rounds_per_table
                    or getattr(self.current, 'tainted', False)):
                # the tables before go first: their leaves free their
                # slots of the shared buffer, so that a table's statements
                # meet the same buffer when replayed alone
                while len(self.tables) >= self.args.keep_tables:
                    old = self.tables.pop(0)
                    self.admin.run('DROP TABLE %s' % old.name, log=False)
                self.connect_all()
                self.current = self.new_table(self.rng.choice(kinds) if kinds else None)
                self.current.owned = {}
                rounds_on_table = 0
            t = self.current
            self.stats['rounds'] += 1
            rounds_on_table += 1
            r = self.rng.random()
            if r < self.args.concurrent_share:
                self.concurrent_round(t)
            elif r < self.args.concurrent_share + self.args.serial_share:
                self.concurrent_round(t, serial=True)
            else:
                self.single_round(t)
        if self.args.state:
            self.save_state()
        for s in self.sessions.values():
            s.close()


def main():
    ap = argparse.ArgumentParser(description='differential fuzzer of managed summaries')
    ap.add_argument('--dsn', default='')
    ap.add_argument('--seconds', type=float, default=60)
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--state', help='tables and row counts kept across a crash')
    ap.add_argument('--findings', help='file the findings are appended to')
    ap.add_argument('--kinds', help='table kinds only (list,range,hash,multi,fk)')
    ap.add_argument('--concurrent-share', type=float, default=0.35)
    ap.add_argument('--held-share', type=float, default=0.4)
    ap.add_argument('--bulk-share', type=float, default=0.002,
                    help='share of writes of 70,000 new keys in one statement')
    ap.add_argument('--serial-share', type=float, default=0.15,
                    help='share of rounds with several sessions one transaction at a time')
    ap.add_argument('--rounds-per-table', type=int, default=12)
    ap.add_argument('--keep-tables', type=int, default=1,
                    help='tables kept when a new one is made (more: a finding may not replay alone)')
    ap.add_argument('--trace-lines', type=int, default=80)
    ap.add_argument('--stop-on-finding', action='store_true')
    ap.add_argument('--no-triggers', action='store_true', help='no row triggers that read the table')
    ap.add_argument('--print-per-case', type=int, default=2,
                    help='findings of one case printed with their statements; the others in one line')
    args = ap.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    print('# summary_fuzz seed %d (replay: BLOOM_FUZZ_SEED=%d)' % (args.seed, args.seed), flush=True)
    TRIGGERS[0] = not args.no_triggers
    fz = Fuzzer(args)
    status = 0
    try:
        fz.run()
    except Finding:
        pass
    except Exception:
        import traceback
        traceback.print_exc()
        status = 2
    fz.stats['seed'] = args.seed
    fz.stats['findings'] = len(fz.findings)
    fz.stats['findings_by_case'] = fz.by_case
    print('STATS %s' % json.dumps(fz.stats, sort_keys=True), flush=True)
    sys.exit(status)


if __name__ == '__main__':
    main()
