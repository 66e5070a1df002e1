#!/usr/bin/python3
# summary_replay.py: replays the statements of a finding of summary_fuzz.py
# in a new database, and optionally shrinks them to a minimal sequence that
# still shows the same kind of failure (delta debugging over statements).
#
#   summary_replay.py --dsn DSN --findings FILE --finding N [--minimize]
#   summary_replay.py --dsn DSN --trace FILE [--minimize]
#
# Exit status: 0 when the replay fails nowhere, 3 when it shows a failure.
# summary_cases/*.trace are the shrunk sequences of issue 34's cases, which
# test/t/845_summary_fuzz.pl replays as regression tests.
#
# A trace is the fuzzer's: one "SESSION: statement;" per line, a COPY's
# rows on the lines after it up to "\.".  Each session is a connection of
# its own; the statements run in the order of the trace.  "H: COMMIT; --
# held" runs in a thread and stays in flight until "X: SELECT
# pg_cancel_backend(<pid of H>)" (the server needs synchronous_standby_names
# = 'nobody').  Every SELECT of a fuzz table and every EXECUTE that runs
# with pruning on is also run with pruning off right after it in the same
# transaction, and compared.
#
# The failure looked for (--want): "read" (a read differs), "mismatch" (a
# write raises fz_count's "bloomfuzz mismatch"), "fk" (a foreign key
# violation, 23503), or "any" (the default: any of them).  Why Python: the
# fuzzer's own language and its connections (see summary_fuzz.py).

import argparse
import os
import re
import sys
import threading
import time

import psycopg2

sys.dont_write_bytecode = True     # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summary_fuzz import GUC, SETUP_SQL  # noqa: E402

ENTRY_RE = re.compile(r'^  ([A-Z][A-Z0-9]*): (.*)$')


def parse(lines):
    """Entries (session, statement, copy rows or None) of a trace."""
    out = []
    for line in lines:
        m = ENTRY_RE.match(line)
        if m:
            out.append([m.group(1), m.group(2), None])
        elif out and out[-1][1].startswith('COPY ') and line != '':
            out[-1][2] = (out[-1][2] or '') + line + '\n'
    for e in out:
        if e[2] is not None:
            e[2] = e[2].rsplit('\\.', 1)[0]
    return [tuple(e) for e in out]


def read_finding(path, number):
    text = open(path).read()
    blocks = re.split(r'^(?=FINDING \d+:)', text, flags=re.M)
    for b in blocks:
        if b.startswith('FINDING %d:' % number):
            lines = b.split('\n')
            start = next(i for i, l in enumerate(lines) if 'statements of the table since' in l)
            return lines[0], lines[start + 1:]
    raise SystemExit('finding %d not in %s' % (number, path))


class Replay:
    def __init__(self, dsn_base, want, verbose=False):
        self.dsn_base = dsn_base
        self.want = want
        self.verbose = verbose
        self.n = 0

    def fresh_db(self):
        self.n += 1
        name = 'sbreplay_%d_%d' % (os.getpid(), self.n)
        c = psycopg2.connect(self.dsn_base + ' dbname=postgres')
        c.autocommit = True
        c.cursor().execute('CREATE DATABASE %s' % name)
        c.close()
        return name

    def drop_db(self, name):
        c = psycopg2.connect(self.dsn_base + ' dbname=postgres')
        c.autocommit = True
        for _ in range(50):
            try:
                c.cursor().execute('DROP DATABASE IF EXISTS %s WITH (FORCE)' % name)
                break
            except psycopg2.Error:
                time.sleep(0.1)
        c.close()

    def run(self, entries):
        """Replays entries; returns a description of the failure seen, or None."""
        db = self.fresh_db()
        conns = {}
        held = {}
        failure = None
        tables = set(m.group(1) for e in entries for m in [re.match(r'CREATE TABLE (\w+) \(', e[1])] if m)
        try:
            def conn(name):
                if name not in conns:
                    c = psycopg2.connect(self.dsn_base + ' dbname=' + db)
                    c.autocommit = True
                    cur = c.cursor()
                    cur.execute("SET synchronous_commit = local")
                    cur.execute("SET lock_timeout = '1s'")
                    if not conns:
                        cur.execute('CREATE EXTENSION bloomfilter')
                        for sql in SETUP_SQL:
                            cur.execute(sql)
                    cur.execute('SELECT pg_backend_pid()')
                    conns[name] = (c, cur, cur.fetchone()[0])
                return conns[name]
            conn('A')
            for sess, sql, rows in entries:
                c, cur, pid = conn(sess)
                if 'held in flight' in sql:
                    try:
                        cur.execute('SET LOCAL synchronous_commit = on')
                    except psycopg2.Error:
                        pass
                    th = threading.Thread(target=lambda cur=cur: self.quiet(cur, 'COMMIT'))
                    th.start()
                    held[sess] = (th, pid)
                    deadline = time.time() + 5
                    while th.is_alive() and time.time() < deadline:
                        cur2 = conn('X')[1]
                        cur2.execute('SELECT wait_event FROM pg_stat_activity WHERE pid = %d' % pid)
                        r = cur2.fetchone()
                        if r and r[0] == 'SyncRep':
                            break
                        time.sleep(0.005)
                    continue
                if 'pg_cancel_backend(<pid of H>)' in sql:
                    if 'H' in held:
                        th, hpid = held.pop('H')
                        cur.execute('SELECT pg_cancel_backend(%d)' % hpid)
                        th.join(10)
                    continue
                sql = sql.rstrip(';').strip()
                # after an error the transaction cannot say: ask before
                writes_on = (self.want in ('fk', 'any') and
                             re.match(r'(INSERT|UPDATE|MERGE|WITH|COPY)\b', sql) and self.pruning_on(cur))
                try:
                    if rows is not None:
                        cur.copy_expert(sql, __import__('io').StringIO(rows))
                        continue
                    cur.execute(sql)
                except psycopg2.Error as e:
                    msg = str(e).strip().split('\n')[0]
                    if self.verbose:
                        print('  %s error: %s' % (sess, msg))
                    if 'bloomfuzz mismatch' in msg and self.want in ('mismatch', 'any'):
                        failure = 'mismatch: ' + msg
                        break
                    if e.pgcode == '23503' and writes_on:
                        failure = 'fk: ' + msg
                        break
                    continue
                if self.want in ('read', 'any') and self.is_read(sql, tables):
                    on = sorted(map(repr, cur.fetchall()))
                    if not self.pruning_on(cur):
                        continue
                    try:
                        in_tx = c.get_transaction_status() != psycopg2.extensions.TRANSACTION_STATUS_IDLE
                        if in_tx:
                            cur.execute('SET LOCAL %s = off' % GUC)
                        else:
                            cur.execute('SET %s = off' % GUC)
                        cur.execute(sql)
                        off = sorted(map(repr, cur.fetchall()))
                        cur.execute(('SET LOCAL %s = on' if in_tx else 'SET %s = on') % GUC)
                    except psycopg2.Error:
                        continue
                    if on != off:
                        failure = 'read: %s: %d rows with pruning, %d without' % (sql[:200], len(on), len(off))
                        break
        finally:
            for th, pid in held.values():
                try:
                    conn('X')[1].execute('SELECT pg_cancel_backend(%d)' % pid)
                except psycopg2.Error:
                    pass
                th.join(10)
            # dropping the tables frees their slots of the shared buffer
            # (a dropped database would keep them taken)
            try:
                cur = conn('A')[1]
                cur.execute('ROLLBACK')
                for t in tables:
                    cur.execute('DROP TABLE IF EXISTS %s' % t)
            except psycopg2.Error:
                pass
            for c, cur, pid in conns.values():
                try:
                    c.close()
                except psycopg2.Error:
                    pass
            self.drop_db(db)
        return failure

    @staticmethod
    def quiet(cur, sql):
        try:
            cur.execute(sql)
        except psycopg2.Error:
            pass

    @staticmethod
    def pruning_on(cur):
        try:
            cur.execute('SHOW %s' % GUC)
            return cur.fetchone()[0] == 'on'
        except psycopg2.Error:
            return False

    @staticmethod
    def is_read(sql, tables):
        u = sql.lstrip().upper()
        if u.startswith('EXECUTE'):
            return True
        return u.startswith('SELECT') and 'BLOOM_SUMMAR' not in u and any(t in sql for t in tables)


def minimize(rp, entries, kind):
    """ddmin over statements: the smallest list (1-minimal) that still
    fails with a failure of the same kind."""
    fixed = [e for e in entries if e[1].startswith('CREATE TABLE') or e[1].startswith('SELECT bloom_summary_create')
             or e[1].startswith('CREATE TRIGGER')]
    rest = [e for e in entries if e not in fixed]

    def fails(sub):
        f = rp.run(fixed + sub)
        return f is not None and f.split(':')[0] == kind

    n = 2
    while len(rest) >= 2:
        chunk = max(1, len(rest) // n)
        reduced = False
        for i in range(0, len(rest), chunk):
            cand = rest[:i] + rest[i + chunk:]
            if fails(cand):
                rest = cand
                n = max(n - 1, 2)
                reduced = True
                print('# %d statements left' % len(rest), flush=True)
                break
        if not reduced:
            if n >= len(rest):
                break
            n = min(len(rest), n * 2)
    # the DDL too: partitions and triggers that do not matter
    for e in list(fixed):
        if e[1].startswith('CREATE TABLE %s (' % fixed[0][1].split()[2]):
            continue
        cand = [x for x in fixed if x is not e]
        f = rp.run(cand + rest)
        if f is not None and f.split(':')[0] == kind:
            fixed = cand
    return fixed + rest


def show(entries):
    for s, sql, rows in entries:
        print('%s: %s' % (s, sql))
        if rows is not None:
            sys.stdout.write(rows + '\\.\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dsn', required=True, help='connection options without dbname')
    ap.add_argument('--findings')
    ap.add_argument('--finding', type=int)
    ap.add_argument('--trace')
    ap.add_argument('--want', default='any', choices=['any', 'read', 'mismatch', 'fk'])
    ap.add_argument('--minimize', action='store_true')
    ap.add_argument('--verbose', action='store_true')
    args = ap.parse_args()
    if args.trace:
        lines = ['  ' + l if ENTRY_RE.match('  ' + l) else l for l in open(args.trace).read().split('\n')]
    else:
        head, lines = read_finding(args.findings, args.finding)
        print('# ' + head[:300])
    entries = parse(lines)
    rp = Replay(args.dsn, args.want, args.verbose)
    f = rp.run(entries)
    print('# replay of %d statements: %s' % (len(entries), f or 'no failure'))
    if f is None:
        sys.exit(0)
    if args.minimize:
        entries = minimize(rp, entries, f.split(':')[0])
        print('# minimal sequence (%d statements): %s' % (len(entries), rp.run(entries)))
        show(entries)
    sys.exit(3)


if __name__ == '__main__':
    main()
