#!/usr/bin/python3
"""Differential fuzzer of the automatic semijoin prefilter over postgres_fdw.

Every statement it makes runs twice, in two sessions of the local server
that differ in one setting only, bloomfilter.semijoin_prefilter on and off;
the results are compared as multisets (sorted rows).  A difference, or an
error only with the rewrite on, is a finding; errors both ways are counted
by message (a generated statement may be wrong, or postgres_fdw may ship a
condition the remote types do not have).
The plan with the rewrite on (EXPLAIN VERBOSE) tells whether the filter
fired: a bloom_contains* probe in a Remote SQL or a bloom_agg InitPlan.

Why Python with psycopg2 (Debian's python3-psycopg2, run by /usr/bin/python3):
two long-lived sessions whose errors come back as objects with a SQLSTATE,
prepared statements and cursors driven statement by statement, and data
changes from other sessions in between; DBD::Pg is not installed here and
psql would need a parser of its output.

What it generates (issue 33, "The prefilter never changes a result"): a
schema per round over the local server and one or two remote servers:
probe tables that are foreign tables on a remote server (their columns
declared with the remote type or with another one of the same value
domain: int2/int4/int8/numeric(p,s)/text/varchar(n)/char(n) over numbers,
text/varchar(n)/char(n) over strings, date/timestamp/timestamptz/text over
days, uuid/text over uuids), a partitioned table whose partitions are
foreign tables of both servers, local build tables, and the foreign tables
again as build sides (same server or another one).  With ICU, a
nondeterministic collation fz.ci (und-u-ks-level2) on some string columns,
locally, remotely or both.  Values collide across types: 'ab' and 'ab  ',
'AB', 1 and 1.00 (numeric(10,2)), ' 5' and '5' in text, dates and timestamps at midnight,
uuids in upper case, in braces or without hyphens.  Statements: joins,
joins written in WHERE, LEFT JOINs, IN, EXISTS, the foreign table inside
IN, row comparisons (a,b) IN (SELECT ...), composite keys, NOT IN / NOT
EXISTS (never rewritten), count(*) aggregates; keys that are columns or
expressions on either side (abs, lower, upper, + 1, ::text, ::numeric,
::int8, ::date, an explicit COLLATE); build sides that are tables, foreign
tables, generate_series, VALUES, sub-selects and CTEs; prepared statements
executed seven times under a plan_cache_mode, with the build or probe data
changed between executions (and put back after); cursors fetched in two
steps; statements inside a transaction that changed the build side first.

Settings that make the rewrite fire on tables of a few hundred rows (the
defaults are for real tables): bloomfilter.semijoin_min_rows_saved = 0
(default 10,000), every table and foreign table ANALYZEd (the rule
declines a foreign table or key without statistics), a selective build
side (sel < 2..12 of a uniform 0..99, so at most an eighth of the rows:
bloomfilter.semijoin_max_pass_rate 0.5 keeps it), and probe tables larger
than the selected build rows (the rule wants rows saved > build rows).
use_remote_estimate is set at random on foreign tables, and
enable_partitionwise_join at random per statement; both sessions always
share every setting but the one compared.  Merge joins and nested loops
are off where a key column is declared with another type or collation
than the remote one: postgres_fdw has the remote sort a merge join's input
in the remote order, and a nested loop may push the join clause into a
parameterized remote scan compared on the remote type and collation, so
the join's result would depend on the plan whatever the rewrite does.
A difference that remains there counts as PostgreSQL's
(pg_plan_dependent) only if the rewrite-off session, run again under
another plan (generic or custom, one join method off), returns exactly
the rows of the rewrite-on session.
Semijoin forms under a nondeterministic collation are compared by their
distinct rows: PostgreSQL 17 and 18 may return an outer row once per
inner value equal to it, depending on the plan (pg_multiplicity_only).
A statement cancelled by statement_timeout (30 s, a loaded machine) is
counted apart, not compared; after a lost connection (a crash) the
sessions are opened again before the other side runs.

Usage:
  semijoin_fuzz.py --local DSN --remote NAME=DSN [--remote NAME=DSN]
                   [--seconds N | --queries N] [--seed S]
                   [--round R [--query Q]]   (replay: one round, or one statement)
                   [--show N] [--verbose] [--show-errors]   (findings printed as found)
                   [--statement-log FILE]   (a line per statement: compare two builds)
NAME is the foreign server on the local database (created by the caller,
with OPTIONS (extensions 'bloomfilter')), DSN a libpq connection string.
The fuzzer owns schema fz on every server (dropped and made again each
round).  Every round and statement has its own random stream derived from
the seed, so "--seed S --round R --query Q" replays one finding exactly.

Output: "# ..." lines (the seed first, findings with their schema and
statement, the report by class and by form), and last one line
  SUMMARY queries=N fired=N differences=N errors_on_only=N errors_off_only=N errors_both=N timeouts=N
"""

import argparse
import datetime
import hashlib
import os
import random
import re
import time
import uuid as uuidlib

import psycopg2
import psycopg2.extensions

SCHEMA = 'fz'

# Value domains and the types a column of each may have.
NUM_TYPES = ['int2', 'int4', 'int8', 'numeric', 'numeric(10,2)', 'numeric(12,1)',
             'text', 'varchar(8)', 'char(8)']
STR_TYPES = ['text', 'varchar', 'varchar(4)', 'varchar(8)', 'char(4)', 'char(8)']
TIME_TYPES = ['date', 'timestamp', 'timestamptz', 'text']
UUID_TYPES = ['uuid', 'text', 'varchar(40)']
DOMAIN_TYPES = {'num': NUM_TYPES, 'str': STR_TYPES, 'time': TIME_TYPES, 'uuid': UUID_TYPES}
INT_TYPES = ('int2', 'int4', 'int8')


def type_class(t):
    """The local comparison class of a type: which types it can be joined with."""
    if t in INT_TYPES or t.startswith('numeric'):
        return 'num'
    if t in ('date', 'timestamp', 'timestamptz'):
        return 'time'
    if t == 'uuid':
        return 'uuid'
    return 'str'


def is_stringy(t):
    return type_class(t) == 'str'


def declared_choices(domain, remote):
    """Declared types a foreign column may have over a remote column of type
    remote holding values of domain: those whose input function reads every
    value's text form (postgres_fdw fetches text)."""
    if domain == 'num':
        if remote.startswith('numeric'):
            return [t for t in NUM_TYPES if t not in INT_TYPES]
        return NUM_TYPES
    if domain == 'str':
        return STR_TYPES
    if domain == 'time':
        if remote == 'text':
            return ['date', 'timestamp', 'timestamptz', 'text', 'varchar(32)']
        return ['date', 'timestamp', 'timestamptz', 'text']
    if remote == 'uuid':
        return ['uuid', 'text', 'varchar(40)']
    return ['uuid', 'text']


def quote(s):
    return "'" + s.replace("'", "''") + "'"


class Values:
    """The logical values of each domain for one round, and their text in a
    column of a given type (the collisions are chosen here)."""

    def __init__(self, rng):
        self.pool = {
            'num': rng.sample(range(-40, 41), 45),
            'str': self._strings(rng),
            'time': [(d, rng.random() < 0.2) for d in rng.sample(range(0, 60), 40)],
            'uuid': list(range(40)),
        }

    @staticmethod
    def _strings(rng):
        base = ['ab', 'ab ', 'ab  ', 'AB', 'Ab', 'aB  ', 'a', 'A', 'x', 'xy', 'XY', 'xy ',
                'e', 'E ', 'abcd', 'ABCD', 'zz', 'Zz ', '5', '5 ']
        more = ['%s%d' % (rng.choice('kqwKQW'), i) for i in range(24)]
        return base + more

    def pick(self, domain, rng):
        pool = self.pool[domain]
        # a few values are common: the build side repeats them too
        if rng.random() < 0.3:
            return pool[rng.randrange(min(6, len(pool)))]
        return rng.choice(pool)

    def render(self, domain, typ, v, rng):
        """SQL literal of value v of domain in a column of type typ."""
        if domain == 'num':
            if typ in ('numeric(10,2)', 'numeric(12,1)', 'numeric') and rng.random() < 0.1:
                return quote('%d.5' % v if v >= 0 else '-%d.5' % -v)
            if typ == 'text' and rng.random() < 0.15:
                return quote(' %d' % v)
            return quote(str(v))
        if domain == 'str':
            return quote(v)
        if domain == 'time':
            day, noon = v
            d = (datetime.date(2020, 1, 1) + datetime.timedelta(days=day)).isoformat()
            if typ == 'date':
                return quote(d)
            clock = ' 12:00:00' if noon else ' 00:00:00'
            if typ == 'text' and not noon and rng.random() < 0.5:
                clock = ''
            return quote(d + clock)
        u = str(uuidlib.UUID(bytes=hashlib.md5(b'u%d' % v).digest()))
        if typ != 'uuid':
            r = rng.random()
            if r < 0.2:
                u = u.upper()
            elif r < 0.3:
                u = '{%s}' % u
            elif r < 0.4:
                u = u.replace('-', '')
        return quote(u)


class Column:
    def __init__(self, name, domain, local_type, remote_type=None, collation=None,
                 remote_collation=None):
        self.name = name
        self.domain = domain
        self.type = local_type            # declared (foreign) or local type
        self.remote_type = remote_type    # None for a local table
        self.collation = collation        # 'fz.ci' or None
        self.remote_collation = remote_collation
        self.part_types = []              # the remote types of a partitioned table's leaves

    def remote_types(self):
        return ([self.remote_type] if self.remote_type else []) + self.part_types

    @property
    def mismatch(self):
        return self.remote_type is not None and (
            any(t != self.type for t in self.remote_types())
            or self.collation != self.remote_collation)


class Relation:
    """A table of the round: local, foreign (server), or partitioned over
    foreign partitions."""

    def __init__(self, name, kind, server=None):
        self.name = name
        self.kind = kind          # 'local', 'foreign', 'partitioned'
        self.server = server
        self.columns = {}
        self.parts = []           # (partition name, server, remote types) for 'partitioned'
        self.ddl = []             # (server or 'local', sql) lines, for the report
        self.rows = 0


def col_sql(c, typ, collation):
    return '%s %s%s' % (c.name, typ, ' COLLATE %s' % collation if collation else '')


class Schema:
    """One round's tables on every server."""

    def __init__(self, rng, servers, icu):
        self.rng = rng
        self.servers = servers    # names of the foreign servers
        self.icu = icu
        self.values = Values(rng)
        self.relations = []
        domains = ['num', 'str', 'time', 'uuid']
        # k1 and k2: each round picks the domains of the two key columns
        self.domains = {'k1': rng.choice(domains + ['num', 'str']),
                        'k2': rng.choice(domains)}
        for i in range(3):
            self.relations.append(self._foreign('ft%d' % i, rng.choice(servers)))
        self.relations.append(self._partitioned('pt'))
        for i in range(2):
            self.relations.append(self._local('lt%d' % i))

    def _collation(self, typ):
        if self.icu and is_stringy(typ) and self.rng.random() < 0.2:
            return '%s.ci' % SCHEMA
        return None

    def _foreign_column(self, name, remote_type=None):
        rng = self.rng
        domain = self.domains[name]
        remote_type = remote_type or rng.choice(DOMAIN_TYPES[domain])
        declared = remote_type
        if rng.random() < 0.5:
            declared = rng.choice(declared_choices(domain, remote_type))
        rcoll = self._collation(remote_type)
        dcoll = rcoll if rng.random() < 0.6 and is_stringy(declared) else self._collation(declared)
        return Column(name, domain, declared, remote_type, dcoll, rcoll)

    def _foreign(self, name, server):
        rel = Relation(name, 'foreign', server)
        for k in ('k1', 'k2'):
            rel.columns[k] = self._foreign_column(k)
        rel.rows = self.rng.randint(120, 300)
        return rel

    def _partitioned(self, name):
        rel = Relation(name, 'partitioned')
        rng = self.rng
        for k in ('k1', 'k2'):
            domain = self.domains[k]
            declared = rng.choice(DOMAIN_TYPES[domain])
            rel.columns[k] = Column(k, domain, declared, declared, self._collation(declared))
        nparts = rng.randint(2, 3)
        for j in range(nparts):
            remote = {}
            for k, c in rel.columns.items():
                # a partition's remote type is one the parent's declared type reads
                ok = [t for t in DOMAIN_TYPES[c.domain] if c.type in declared_choices(c.domain, t)]
                remote[k] = c.type if rng.random() < 0.5 or not ok else rng.choice(ok)
            rel.parts.append(('%s_%d' % (name, j), self.servers[j % len(self.servers)], remote))
            for k, c in rel.columns.items():
                c.part_types.append(remote[k])
        rel.rows = 100 * nparts
        return rel

    def _local(self, name):
        rel = Relation(name, 'local')
        for k in ('k1', 'k2'):
            domain = self.domains[k]
            t = self.rng.choice(DOMAIN_TYPES[domain])
            rel.columns[k] = Column(k, domain, t, None, self._collation(t))
        rel.rows = self.rng.randint(40, 150)
        return rel

    # --- DDL and data ---

    def _insert(self, table, rows, cols, types, first_id=1):
        vals = []
        for i in range(first_id, first_id + rows):
            lits = []
            for c in cols:
                if self.rng.random() < 0.05:
                    lits.append('NULL')
                else:
                    lits.append(self.values.render(c.domain, types[c.name],
                                                   self.values.pick(c.domain, self.rng), self.rng))
            vals.append('(%d, %d, %s)' % (i, self.rng.randrange(100), ', '.join(lits)))
        return 'INSERT INTO %s (id, sel, k1, k2) VALUES %s' % (table, ',\n'.join(vals))

    def build(self, conns, local):
        """Creates the round's objects.  conns: server name -> connection."""
        for rel in self.relations:
            cols = [rel.columns['k1'], rel.columns['k2']]
            if rel.kind == 'local':
                sql = 'CREATE TABLE %s.%s (id int, sel int, %s)' % (
                    SCHEMA, rel.name, ', '.join(col_sql(c, c.type, c.collation) for c in cols))
                rel.ddl.append(('local', sql))
                run(local, sql)
                run(local, self._insert('%s.%s' % (SCHEMA, rel.name), rel.rows, cols,
                                        {c.name: c.type for c in cols}))
            elif rel.kind == 'foreign':
                rsql = 'CREATE TABLE %s.r_%s (id int, sel int, %s)' % (
                    SCHEMA, rel.name,
                    ', '.join(col_sql(c, c.remote_type, c.remote_collation) for c in cols))
                rel.ddl.append((rel.server, rsql))
                run(conns[rel.server], rsql)
                run(conns[rel.server], self._insert('%s.r_%s' % (SCHEMA, rel.name), rel.rows, cols,
                                                    {c.name: c.remote_type for c in cols}))
                opts = "schema_name '%s', table_name 'r_%s'" % (SCHEMA, rel.name)
                if self.rng.random() < 0.3:
                    opts += ", use_remote_estimate 'true'"
                sql = 'CREATE FOREIGN TABLE %s.%s (id int, sel int, %s) SERVER %s OPTIONS (%s)' % (
                    SCHEMA, rel.name, ', '.join(col_sql(c, c.type, c.collation) for c in cols),
                    rel.server, opts)
                rel.ddl.append(('local', sql))
                run(local, sql)
            else:
                sql = 'CREATE TABLE %s.%s (id int, sel int, %s) PARTITION BY RANGE (id)' % (
                    SCHEMA, rel.name, ', '.join(col_sql(c, c.type, c.collation) for c in cols))
                rel.ddl.append(('local', sql))
                run(local, sql)
                for j, (pname, server, remote) in enumerate(rel.parts):
                    rsql = 'CREATE TABLE %s.r_%s (id int, sel int, %s)' % (
                        SCHEMA, pname, ', '.join(col_sql(c, remote[c.name], None) for c in cols))
                    rel.ddl.append((server, rsql))
                    run(conns[server], rsql)
                    run(conns[server], self._insert('%s.r_%s' % (SCHEMA, pname), 100, cols,
                                                    remote, first_id=100 * j))
                    sql = ("CREATE FOREIGN TABLE %s.%s PARTITION OF %s.%s FOR VALUES FROM (%d) TO (%d) "
                           "SERVER %s OPTIONS (schema_name '%s', table_name 'r_%s')") % (
                        SCHEMA, pname, SCHEMA, rel.name, 100 * j, 100 * (j + 1), server, SCHEMA, pname)
                    rel.ddl.append(('local', sql))
                    run(local, sql)
        for name, conn in conns.items():
            run(conn, 'ANALYZE')
        names = []
        for rel in self.relations:
            names.append('%s.%s' % (SCHEMA, rel.name))
            names += ['%s.%s' % (SCHEMA, p[0]) for p in rel.parts]
        # a table now and then without statistics: the rule must decline it
        analyzed = [n for n in names if self.rng.random() < 0.97]
        if analyzed:
            run(local, 'ANALYZE ' + ', '.join(analyzed))

    def by_kind(self, kind):
        return [r for r in self.relations if r.kind == kind]


def run(conn, sql, params=None):
    with conn.cursor() as cur:
        cur.execute(sql, params)
        if cur.description is not None:
            return cur.fetchall()
    return None


# ---------------------------------------------------------------- keys

def key_exprs(alias, col):
    """(SQL, result class, written expression?) of the keys over a column."""
    c = '%s.%s' % (alias, col.name)
    t = col.type
    cls = type_class(t)
    out = [(c, cls, False)]
    if cls == 'num':
        out += [('abs(%s)' % c, 'num', True), ('(%s + 1)' % c, 'num', True),
                ('%s::text' % c, 'str', True), ('%s::numeric' % c, 'num', True)]
        if t in INT_TYPES:
            out.append(('%s::int8' % c, 'num', True))
    elif cls == 'str':
        out += [('lower(%s)' % c, 'str', True), ('upper(%s)' % c, 'str', True),
                ('%s::text' % c, 'str', True)]
    elif cls == 'time':
        out += [('%s::date' % c, 'time', True), ('%s::timestamp' % c, 'time', True),
                ('%s::text' % c, 'str', True)]
    else:
        out += [('%s::text' % c, 'str', True), ('upper(%s::text)' % c, 'str', True)]
    if cls == 'str' and col.domain == 'uuid':
        out.append(('upper(%s::text)' % c, 'str', True))
    return out


def choose_key(rng, alias, col, want_class=None, expr_rate=0.35):
    opts = key_exprs(alias, col)
    if want_class is not None:
        opts = [o for o in opts if o[1] == want_class]
        if not opts:
            return None
    plain = [o for o in opts if not o[2]]
    if plain and rng.random() > expr_rate:
        return plain[0]
    return rng.choice(opts)


def match_keys(rng, fcol, bcol, falias, balias):
    """A probe key and a build key that compare: both of one class.  Returns
    (fkey, bkey) as (sql, class, expr) or None."""
    for _ in range(6):
        fk = choose_key(rng, falias, fcol)
        bk = choose_key(rng, balias, bcol, fk[1])
        if bk is None and fk[1] != 'str':
            # written cast to text on both sides
            fk = (fk[0] + '::text', 'str', True)
            bk = choose_key(rng, balias, bcol, 'str', expr_rate=1.0)
            if bk is None:
                bk = (bk_text(balias, bcol), 'str', True)
        elif bk is None:
            bk = (bk_text(balias, bcol), 'str', True)
        if bk is not None:
            return fk, bk
    return None


def bk_text(alias, col):
    return '%s.%s::text' % (alias, col.name)


# ---------------------------------------------------------------- build sides

class Build:
    """A build relation as written in a statement."""

    def __init__(self, kind, from_sql, columns, sel, ident, rel=None, cte=None):
        self.kind = kind            # local, foreign-same, foreign-other, series, values, subselect, cte, partitioned
        self.from_sql = from_sql    # the FROM item, alias b
        self.columns = columns      # name -> Column (local view)
        self.sel = sel              # its own condition (may hold %(x)s for the threshold) or ''
        self.ident = ident          # expression identifying a build row in the output
        self.rel = rel
        self.cte = cte              # WITH clause


def make_build(rng, schema, probe):
    local = schema.by_kind('local')
    foreign = schema.by_kind('foreign')
    # relations that are not tables never fire: a quarter of the statements
    kinds = ['local'] * 8 + ['foreign'] * 5 + ['series', 'values', 'subselect', 'cte']
    kind = rng.choice(kinds)
    if kind == 'foreign':
        cands = [r for r in foreign if r is not probe]
        # another server than the probe's, mostly: on the same one postgres_fdw may join remotely
        other = [r for r in cands if r.server != getattr(probe, 'server', None)]
        if other and rng.random() < 0.85:
            cands = other
        if rng.random() < 0.1:
            cands = [r for r in schema.by_kind('partitioned') if r is not probe] or cands
        rel = rng.choice(cands)
        same = rel.server == getattr(probe, 'server', None) and rel.server is not None
        label = 'partitioned' if rel.kind == 'partitioned' else ('foreign-same' if same else 'foreign-other')
        return Build(label, '%s.%s b' % (SCHEMA, rel.name), rel.columns, 'b.sel < %(x)s', 'b.id', rel)
    if kind == 'local':
        rel = rng.choice(local)
        return Build('local', '%s.%s b' % (SCHEMA, rel.name), rel.columns, 'b.sel < %(x)s', 'b.id', rel)
    if kind in ('subselect', 'cte'):
        rel = rng.choice(local + foreign)
        inner = 'SELECT id, sel, k1, k2 FROM %s.%s WHERE sel < %%(x)s' % (SCHEMA, rel.name)
        if kind == 'subselect':
            return Build('subselect', '(%s) b' % inner, rel.columns, '', 'b.id', rel)
        mat = rng.choice(['', 'MATERIALIZED ', 'NOT MATERIALIZED '])
        return Build('cte', 'bc b', rel.columns, '', 'b.id', rel,
                     cte='WITH bc AS %s(%s) ' % (mat, inner))
    # relations that are not tables: a function or VALUES of the round's values
    k1 = schema.domains['k1']
    if kind == 'series' and k1 in ('num', 'time'):
        if k1 == 'num':
            lo = rng.randint(-40, 35)
            col = Column('k1', 'num', 'int4')
            sql = 'generate_series(%d, %d) b(k1)' % (lo, lo + rng.randint(2, 8))
        else:
            d = rng.randint(0, 50)
            col = Column('k1', 'time', 'timestamp')
            sql = ("generate_series(date '2020-01-01' + %d, date '2020-01-01' + %d, interval '1 day') b(k1)"
                   % (d, d + rng.randint(2, 8)))
        return Build('series', sql, {'k1': col}, '', 'b.k1::text')
    cols = {}
    rows = []
    types = {}
    for k in ('k1', 'k2'):
        dom = schema.domains[k]
        types[k] = rng.choice([t for t in DOMAIN_TYPES[dom] if not t.startswith('varchar(') and t != 'char(4)'])
        cols[k] = Column(k, dom, types[k])
    for _ in range(rng.randint(2, 8)):
        lits = ['%s::%s' % (schema.values.render(cols[k].domain, types[k],
                                                 schema.values.pick(cols[k].domain, rng), rng), types[k])
                for k in ('k1', 'k2')]
        rows.append('(%s)' % ', '.join(lits))
    return Build('values', '(VALUES %s) b(k1, k2)' % ', '.join(rows), cols, '', 'b.k1::text')


# ---------------------------------------------------------------- statements

FORMS = ['join', 'join', 'where', 'left', 'in', 'in', 'exists', 'inside', 'rowin',
         'composite', 'count', 'anti']
MODES = ['plain'] * 6 + ['prepared', 'prepared', 'cursor', 'txn']


class Statement:
    def __init__(self):
        self.sql = ''
        self.form = ''
        self.mode = ''
        self.build = None
        self.probe = None
        self.keys = []              # [(fkey, bkey, fcol, bcol)]
        self.settings = []
        self.threshold = 5
        self.param = False
        self.trace = []             # a prepared statement's executions and data changes


def make_statement(rng, schema):
    st = Statement()
    probes = schema.by_kind('foreign') + schema.by_kind('partitioned')
    probe = rng.choice(probes)
    build = make_build(rng, schema, probe)
    st.probe, st.build = probe, build
    form = rng.choice(FORMS)
    names = [k for k in ('k1', 'k2') if k in build.columns]
    if form in ('rowin', 'composite') and len(names) < 2:
        form = 'join'
    st.form = form
    nkeys = 2 if form in ('rowin', 'composite') else 1
    chosen = rng.sample(names, nkeys) if nkeys == 2 else [rng.choice(names)]
    for name in chosen:
        # usually the same column name, sometimes across (k1 = k2 of another domain)
        fname = name if rng.random() < 0.85 else rng.choice(['k1', 'k2'])
        pair = match_keys(rng, probe.columns[fname], build.columns[name], 'f', 'b')
        if pair is None:
            return None
        st.keys.append((pair[0], pair[1], probe.columns[fname], build.columns[name]))
    conds = []
    for fk, bk, fcol, bcol in st.keys:
        eq = '%s = %s' % (fk[0], bk[0])
        if fk[1] == 'str' and rng.random() < 0.05:
            eq = '%s = %s COLLATE "C"' % (fk[0], bk[0])
        conds.append(eq)
    on = ' AND '.join(conds)
    bsel = build.sel
    fsel = rng.choice(['', '', '', 'f.id %% 4 <> 1', 'f.sel < 90'])
    st.threshold = rng.randint(2, 12)
    st.mode = rng.choice(MODES)
    st.param = st.mode == 'prepared'
    x = '$1' if st.param else str(st.threshold)
    cte = build.cte or ''
    frm = build.from_sql % {'x': x} if '%(x)s' in build.from_sql else build.from_sql
    if cte:
        cte = cte % {'x': x}
    bsel = bsel % {'x': x} if bsel else ''
    pfrom = '%s.%s f' % (SCHEMA, probe.name)

    def where(*cs):
        cs = [c for c in cs if c]
        return (' WHERE ' + ' AND '.join(cs)) if cs else ''

    fsel_sql = fsel.replace('%%', '%')
    if form in ('join', 'count'):
        sel = 'count(*)' if form == 'count' else 'f.id, %s' % build.ident
        st.sql = '%sSELECT %s FROM %s JOIN %s ON %s%s' % (cte, sel, frm, pfrom, on, where(bsel, fsel_sql))
    elif form == 'composite':
        st.sql = '%sSELECT f.id, %s FROM %s JOIN %s ON %s%s' % (cte, build.ident, frm, pfrom, on,
                                                                 where(bsel, fsel_sql))
    elif form == 'where':
        st.sql = '%sSELECT f.id, %s FROM %s, %s%s' % (cte, build.ident, frm, pfrom, where(on, bsel, fsel_sql))
    elif form == 'left':
        st.sql = '%sSELECT %s, f.id FROM %s LEFT JOIN %s ON %s%s' % (
            cte, build.ident, frm, pfrom, ' AND '.join([on] + ([fsel_sql] if fsel_sql else [])), where(bsel))
    elif form == 'in':
        fk, bk = st.keys[0][0], st.keys[0][1]
        st.sql = '%sSELECT f.id FROM %s WHERE %s IN (SELECT %s FROM %s%s)%s' % (
            cte, pfrom, fk[0], bk[0], frm, where(bsel), (' AND ' + fsel_sql) if fsel_sql else '')
    elif form == 'anti':
        fk, bk = st.keys[0][0], st.keys[0][1]
        st.sql = '%sSELECT f.id FROM %s WHERE NOT EXISTS (SELECT 1 FROM %s%s)%s' % (
            cte, pfrom, frm, where(on, bsel), (' AND ' + fsel_sql) if fsel_sql else '')
    elif form == 'exists':
        st.sql = '%sSELECT f.id FROM %s WHERE EXISTS (SELECT 1 FROM %s%s)%s' % (
            cte, pfrom, frm, where(on, bsel), (' AND ' + fsel_sql) if fsel_sql else '')
    elif form == 'inside':
        fk, bk = st.keys[0][0], st.keys[0][1]
        inner = 'SELECT %s FROM %s%s' % (fk[0], pfrom, where(fsel_sql))
        st.sql = '%sSELECT %s FROM %s WHERE %s%s IN (%s)' % (
            cte, build.ident, frm, (bsel + ' AND ') if bsel else '', bk[0], inner)
    elif form == 'rowin':
        fks = ', '.join(k[0][0] for k in st.keys)
        bks = ', '.join(k[1][0] for k in st.keys)
        st.sql = '%sSELECT f.id FROM %s WHERE (%s) IN (SELECT %s FROM %s%s)%s' % (
            cte, pfrom, fks, bks, frm, where(bsel), (' AND ' + fsel_sql) if fsel_sql else '')
    if st.param and '$1' not in st.sql:
        st.mode = 'plain'
        st.param = False
    if st.mode == 'prepared' and build.rel is None:
        st.mode = 'plain'
    st.settings = ['SET bloomfilter.semijoin_min_rows_saved = %d' % rng.choice([0, 0, 0, 10, 50])]
    if rng.random() < 0.3:
        st.settings.append('SET enable_partitionwise_join = on')
    if rng.random() < 0.1:
        st.settings.append('SET enable_hashjoin = off')
    if any(k[2].mismatch or k[3].mismatch for k in st.keys):
        # postgres_fdw sorts a merge join's input on the remote, in the
        # remote type's order: a declared type or collation that orders
        # otherwise feeds the merge join unsorted rows, and its result then
        # depends on the plan, with or without the filter
        st.settings.append('SET enable_mergejoin = off')
        # and a nested loop may push the join clause into a parameterized
        # remote scan, compared there on the remote type and collation (a
        # date declared over a remote timestamp finds '2020-02-09 12:00'
        # unequal to 2020-02-09): whether the planner takes that path
        # depends on the row estimates, which the filter changes
        st.settings.append('SET enable_nestloop = off')
    return st


# ---------------------------------------------------------------- running

class Outcome:
    def __init__(self, rows=None, error=None):
        self.rows = rows
        self.error = error      # (sqlstate, message)
        self.raw = None         # the rows as they came


SEMIJOIN_FORMS = ('in', 'exists', 'inside', 'rowin')


def pg_multiplicity_only(st, on_rows, off_rows):
    """True if two results of a semijoin form under a nondeterministic
    collation differ only in how often a row comes back.  PostgreSQL 17
    and 18 (not 15) may make the sub-select's side unique under its own,
    deterministic collation and then join it under the comparison's: an
    outer row comes back once per inner value equal to it ('k1' and 'K1'
    under a case-insensitive collation), with or without the filter,
    depending on the plan (plain local tables show it: 120 rows, 60
    distinct, where 15 gives 60).  Only the distinct rows are compared
    there; a row missing on either side is still a difference."""
    if st.form not in SEMIJOIN_FORMS:
        return False
    if not any(k[2].collation or k[2].remote_collation or k[3].collation for k in st.keys):
        return False
    return sorted(set(on_rows)) == sorted(set(off_rows))


# Plans the rewrite-off session tries again under, for pg_plan_dependent.
PLAN_VARIANTS = (
    ('SET plan_cache_mode = force_generic_plan',),
    ('SET plan_cache_mode = force_custom_plan',),
    ('SET enable_nestloop = off',),
    ('SET enable_hashjoin = off',),
    ('SET plan_cache_mode = force_generic_plan', 'SET enable_nestloop = off'),
    ('SET plan_cache_mode = force_custom_plan', 'SET enable_nestloop = off'),
    ('SET plan_cache_mode = force_generic_plan', 'SET enable_hashjoin = off'),
    ('SET plan_cache_mode = force_custom_plan', 'SET enable_hashjoin = off'),
)


def declared_mismatch(st):
    """True if a key column is declared with another type or collation than
    the remote column's: postgres_fdw then compares a pushed join clause (a
    parameterized scan) on the remote types and collation, a local join on
    the declared ones (a date declared over a remote timestamp: the remote
    compares '2020-02-09 12:00' with the date and finds it unequal)."""
    return any(c.mismatch for k in st.keys for c in (k[2], k[3]))


def canon(rows):
    return sorted(repr(tuple(r)) for r in rows)


def attempt(conn, sqls):
    """Runs statements in order; returns the rows of those that return rows
    (concatenated, sorted) or the first error."""
    out = []
    try:
        with conn.cursor() as cur:
            for sql, params in sqls:
                cur.execute(sql, params)
                if cur.description is not None:
                    out.extend(cur.fetchall())
        o = Outcome(canon(out))
        o.raw = out
        return o
    except psycopg2.Error as e:
        text = (e.pgerror or str(e) or '').strip()
        if not conn.closed and conn.get_transaction_status() in (
                psycopg2.extensions.TRANSACTION_STATUS_INTRANS,
                psycopg2.extensions.TRANSACTION_STATUS_INERROR):
            with conn.cursor() as cur:
                cur.execute('ROLLBACK')
        return Outcome(error=(e.pgcode, text.splitlines()[0] if text else ''))


def lost(outcome):
    """An error of the connection rather than of the statement: a server
    crashed, restarted, or the connection to a remote broke."""
    return outcome.error is not None and (outcome.error[0] is None or outcome.error[0].startswith('08')
                                          or outcome.error[0] in ('57P01', '57P02', '57P03'))


def timed_out(outcome):
    return outcome.error is not None and outcome.error[0] == '57014'


def plan_fired(plan):
    return any(w in plan for w in ('bloom_contains', 'bloom_agg'))


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.local_dsn = args.local
        self.remotes = [r.split('=', 1) for r in args.remote]
        self.stats = {'multiplicity_only': 0, 'plan_dependent': 0, 'queries': 0, 'fired': 0, 'differences': 0, 'errors_on_only': 0,
                      'errors_off_only': 0, 'errors_both': 0, 'timeouts': 0}
        self.by_form = {}
        self.by_class = {}
        self.best = {}      # class -> (size, text)
        self.messages = {}      # (on-only or both, message) -> count
        self.declined = {}      # reason in the log -> statements not fired

    def connect(self):
        self.on = self.off = self.admin = None
        self.remote_conns = {}
        self.recover(wait=0)
        self.icu = True
        try:
            run(self.admin, "CREATE COLLATION pg_temp.icu_probe (provider = icu, locale = 'und-u-ks-level2', deterministic = false)")
        except psycopg2.Error:
            self.icu = False
            print('# ICU is not available: the nondeterministic collations are left out', flush=True)

    def recover(self, wait=60, settings=()):
        """(Re)opens every connection that is closed or broken, waiting up to
        wait seconds for a server that restarts after a crash; the two
        compared sessions get their setting and the statement's again."""
        deadline = time.time() + wait

        def opened(conn, dsn):
            if conn is not None and not conn.closed:
                try:
                    run(conn, 'SELECT 1')
                    return conn
                except psycopg2.Error:
                    pass
            while True:
                try:
                    c = psycopg2.connect(dsn)
                    c.autocommit = True
                    return c
                except psycopg2.OperationalError:
                    if time.time() >= deadline:
                        raise
                    time.sleep(1)

        for name, dsn in self.remotes:
            self.remote_conns[name] = opened(self.remote_conns.get(name), dsn)
        self.admin = opened(self.admin, self.local_dsn)
        for attr, value in (('on', 'on'), ('off', 'off')):
            old = getattr(self, attr)
            c = opened(old, self.local_dsn)
            if c is not old:
                run(c, "LOAD 'bloomfilter'")
                self.setup_session(c, value, settings)
            setattr(self, attr, c)

    @staticmethod
    def setup_session(c, value, settings):
        attempt(c, [('RESET ALL', None),
                    ('SET bloomfilter.semijoin_prefilter = ' + value, None),
                    ("SET statement_timeout = '30s'", None)] + [(x, None) for x in settings])

    def reset(self):
        for c in [self.admin] + list(self.remote_conns.values()):
            run(c, 'DROP SCHEMA IF EXISTS %s CASCADE' % SCHEMA)
            run(c, 'CREATE SCHEMA %s' % SCHEMA)
            if self.icu:
                run(c, "CREATE COLLATION %s.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)" % SCHEMA)

    def round(self, r, only_query=None):
        rng = random.Random('%s:%d' % (self.seed, r))
        self.reset()
        schema = Schema(rng, [n for n, _ in self.remotes], self.icu)
        schema.build(self.remote_conns, self.admin)
        for q in range(self.args.per_round):
            if only_query is not None and q != only_query:
                continue
            if self.out_of_budget():
                return
            qrng = random.Random('%s:%d:%d' % (self.seed, r, q))
            st = make_statement(qrng, schema)
            if st is None:
                continue
            self.check(st, schema, r, q, qrng)

    def out_of_budget(self):
        a = self.args
        if a.queries and self.stats['queries'] >= a.queries:
            return True
        return a.seconds and time.time() - self.start >= a.seconds

    # the statements each session runs, for one execution step
    def steps(self, st, qrng):
        """A list of executions; each a list of (sql, params) for the session
        and a data change to make (on the admin or a remote) before it, and
        one to undo after all."""
        if st.mode == 'plain':
            return [([(st.sql, None)], None)], None, [('EXPLAIN (VERBOSE, COSTS OFF) ' + st.sql, None)]
        if st.mode == 'cursor':
            n = qrng.randint(1, 5)
            return [([('BEGIN', None), ('DECLARE c CURSOR FOR ' + st.sql, None),
                      ('FETCH %d FROM c' % n, None), ('FETCH ALL FROM c', None),
                      ('COMMIT', None)], None)], None, [('EXPLAIN (VERBOSE, COSTS OFF) ' + st.sql, None)]
        if st.mode == 'txn':
            change = self.data_change(st, qrng)
            if change is None:
                return [([(st.sql, None)], None)], None, [('EXPLAIN (VERBOSE, COSTS OFF) ' + st.sql, None)]
            where, do, undo = change
            if where != 'local':
                return [([(st.sql, None)], None)], None, [('EXPLAIN (VERBOSE, COSTS OFF) ' + st.sql, None)]
            return ([([('BEGIN', None), (do, None), (st.sql, None), ('ROLLBACK', None)], None)], None,
                    [('EXPLAIN (VERBOSE, COSTS OFF) ' + st.sql, None)])
        # prepared: seven executions with changes in between
        mode = qrng.choice(['auto', 'force_generic_plan', 'force_custom_plan'])
        st.settings.append('SET plan_cache_mode = %s' % mode)
        execs = []
        undo = []
        prep = [('DEALLOCATE ALL', None), ('PREPARE p(int) AS ' + st.sql, None)]
        for i in range(7):
            change = None
            if i in (2, 5) or qrng.random() < 0.2:
                change = self.data_change(st, qrng)
                if change:
                    undo.append(change)
            x = qrng.randint(2, 12)
            sqls = (prep if i == 0 else []) + [('EXECUTE p(%d)' % x, None)]
            st.trace += ['[%s: %s]' % (change[0], change[1]) if change else '', 'EXECUTE p(%d)' % x]
            execs.append((sqls, change))
        st.explain_param = x
        return execs, undo, [('EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p(%d)' % x, None)]

    def data_change(self, st, qrng):
        """(where, do, undo): a change of the build table's selected rows or
        of the probe's rows that an undo statement puts back."""
        choices = []
        if st.build.rel is not None and st.build.rel.kind == 'local':
            t = '%s.%s' % (SCHEMA, st.build.rel.name)
            m = qrng.randint(2, 7)
            choices.append(('local', 'UPDATE %s SET sel = (sel + 50) %% 100 WHERE id %% %d = 0' % (t, m),
                            'UPDATE %s SET sel = (sel + 50) %% 100 WHERE id %% %d = 0' % (t, m)))
        if st.probe.kind == 'foreign':
            t = '%s.r_%s' % (SCHEMA, st.probe.name)
            m = qrng.randint(2, 7)
            choices.append((st.probe.server,
                            'UPDATE %s SET id = -id WHERE id %% %d = 1' % (t, m),
                            'UPDATE %s SET id = -id WHERE id < 0' % t))
            # copies of rows under new ids: new keys for the probe side
            choices.append((st.probe.server,
                            'INSERT INTO %s SELECT id + 100000, sel, k1, k2 FROM %s WHERE id %% %d = 0' % (t, t, m),
                            'DELETE FROM %s WHERE id >= 100000' % t))
        return qrng.choice(choices) if choices else None

    def apply(self, change, undo=False):
        where, do, und = change
        conn = self.admin if where == 'local' else self.remote_conns[where]
        run(conn, und if undo else do)

    def check(self, st, schema, r, q, qrng):
        execs, undo, explain = self.steps(st, qrng)
        self.setup_session(self.on, 'on', st.settings)
        self.setup_session(self.off, 'off', st.settings)
        findings = []
        for i, (sqls, change) in enumerate(execs):
            if change:
                self.apply(change)
            a = attempt(self.on, sqls)
            if lost(a):
                # a server crashed or went away: the session with the
                # rewrite off must not fail for that reason
                self.recover(settings=st.settings)
            b = attempt(self.off, sqls)
            if lost(b):
                self.recover(settings=st.settings)
            if timed_out(a) or timed_out(b):
                self.stats['timeouts'] += 1
                continue
            kind = None
            for o, tag in ((a, 'on-only' if not b.error else 'both'), (b, 'off-only' if not a.error else None)):
                if o.error and tag:
                    key = (tag, re.sub(r'"[^"]*"|\d+', '_', o.error[1])[:100])
                    self.messages[key] = self.messages.get(key, 0) + 1
            if a.error and not b.error:
                kind = 'errors_on_only'
            elif b.error and not a.error:
                self.stats['errors_off_only'] += 1
            elif a.error and b.error:
                self.stats['errors_both'] += 1
                if self.args.show_errors:
                    print('# both ways (round %d query %d, %s): %s -- %s' % (r, q, st.mode, a.error[1], st.sql))
            elif a.rows != b.rows:
                if pg_multiplicity_only(st, a.rows, b.rows):
                    self.stats['multiplicity_only'] += 1
                elif self.pg_plan_dependent(st, sqls, a.rows):
                    self.stats['plan_dependent'] += 1
                else:
                    kind = 'differences'
            if kind:
                findings.append((kind, i, a, b))
        del self.on.notices[:]
        plan = attempt(self.on, [("SET bloomfilter.semijoin_log = notice", None)] + explain +
                       [("SET bloomfilter.semijoin_log = off", None)])
        if not plan_fired('\n'.join(x[0] for x in (plan.raw or []))):
            for n in self.on.notices:
                m = re.search(r'no semijoin prefilter on .*?: (.*)', n)
                if m:
                    reason = re.sub(r'\d+(\.\d+)?', 'N', m.group(1).strip())[:100]
                    self.declined[reason] = self.declined.get(reason, 0) + 1
        del self.on.notices[:]
        text = '\n'.join(x[0] for x in plan.raw) if plan.rows is not None else ''
        fired = plan_fired(text)
        if st.mode == 'prepared':
            for c in (self.on, self.off):
                attempt(c, [('DEALLOCATE ALL', None)])
        for change in reversed(undo or []):
            self.apply(change, undo=True)
        self.count(st, fired, findings, schema, r, q, text)

    def pg_plan_dependent(self, st, sqls, on_rows):
        """True if, where a key column is declared with another type or
        collation than the remote one (declared_mismatch), the rewrite-off
        session returns exactly the rewrite-on rows under another plan of
        PostgreSQL's: the difference is the plan's, not the rewrite's.  The
        session's settings are restored after."""
        if not declared_mismatch(st):
            return False
        found = False
        for variant in PLAN_VARIANTS:
            o = attempt(self.off, [(x, None) for x in variant] + sqls)
            if o.error is None and o.rows == on_rows:
                found = True
                break
        self.setup_session(self.off, 'off', st.settings)
        return found

    def count(self, st, fired, findings, schema, r, q, plan):
        s = self.stats
        s['queries'] += 1
        s['fired'] += fired
        if s['queries'] % 1000 == 0:
            print('# progress: %d statements in %.0f s, %d fired, %d differences, %d errors only on' % (
                s['queries'], time.time() - self.start, s['fired'], s['differences'],
                s['errors_on_only']), flush=True)
        if self.statement_log:
            self.statement_log.write('%d %d %s %s %s %d %s\n' % (
                r, q, st.form, st.mode, st.build.kind, fired, findings[0][0] if findings else 'same'))
        tallies = []
        for axis, key in (('form', st.form), ('mode', st.mode), ('build', st.build.kind)):
            t = self.by_form.setdefault((axis, key), [0, 0, 0])
            t[0] += 1
            t[1] += fired
            tallies.append(t)
        if not findings:
            return
        for t in tallies:
            t[2] += 1
        kind, i, a, b = findings[0]
        s[kind] += 1
        cls = classify(st, a)
        c = self.by_class.setdefault(cls, {'differences': 0, 'errors_on_only': 0})
        c[kind] += 1
        report = describe(st, schema, self.seed, r, q, kind, i, a, b, plan)
        size = len(st.sql) + sum(len(x) for x in relevant_ddl(st))
        if cls not in self.best or size < self.best[cls][0]:
            self.best[cls] = (size, report)
        if self.args.verbose or self.shown < self.args.show:
            self.shown += 1
            print(report, flush=True)

    def main(self):
        self.start = time.time()
        self.shown = 0
        self.statement_log = open(self.args.statement_log, 'w') if self.args.statement_log else None
        self.connect()
        print('# seed %s' % self.seed, flush=True)
        if self.args.round is not None:
            self.round(self.args.round, self.args.query)
        else:
            r = 0
            while not self.out_of_budget():
                self.round(r)
                r += 1
            print('# rounds %d' % r)
        self.report()
        for c in [self.on, self.off, self.admin] + list(self.remote_conns.values()):
            c.close()

    def report(self):
        s = self.stats
        elapsed = time.time() - self.start
        print('# %.0f s, %d queries, %d fired the rewrite (%.1f%%)' % (
            elapsed, s['queries'], s['fired'], 100.0 * s['fired'] / max(1, s['queries'])))
        print('# semijoin results under a nondeterministic collation that differed only in how often '
              'PostgreSQL returned a row (compared distinct, see pg_multiplicity_only): %d'
              % s['multiplicity_only'])
        print('# results under a key column declared with another type or collation than the remote one that '
              'PostgreSQL itself returned under another plan (see pg_plan_dependent): %d'
              % s['plan_dependent'])
        print('# differences %d, errors only with the rewrite on %d, errors only with it off %d, '
              'errors both ways %d, executions cancelled by statement_timeout %d' % (
                  s['differences'], s['errors_on_only'], s['errors_off_only'], s['errors_both'],
                  s['timeouts']))
        for cls in sorted(self.by_class):
            c = self.by_class[cls]
            print('# class %-28s differences %4d  errors-on-only %4d' % (
                cls, c['differences'], c['errors_on_only']))
        print('# errors (statement executions):')
        for (tag, msg), n in sorted(self.messages.items(), key=lambda kv: -kv[1])[:12]:
            print('#   %-8s %5d %s' % (tag, n, msg))
        print('# why statements did not fire (semijoin_log, first reasons):')
        for reason, n in sorted(self.declined.items(), key=lambda kv: -kv[1])[:12]:
            print('#   %5d %s' % (n, reason))
        print('# statements by form, mode and build side: run, fired, findings')
        for axis, key in sorted(self.by_form):
            v = self.by_form[(axis, key)]
            print('#   %-6s %-14s %6d %6d %6d' % (axis, key, v[0], v[1], v[2]))
        for cls in sorted(self.best):
            print('# smallest finding of class %s:' % cls)
            print(self.best[cls][1])
        print('SUMMARY queries=%d fired=%d differences=%d errors_on_only=%d errors_off_only=%d '
              'errors_both=%d timeouts=%d' % (s['queries'], s['fired'], s['differences'],
                                              s['errors_on_only'], s['errors_off_only'],
                                              s['errors_both'], s['timeouts']), flush=True)


def relevant_ddl(st):
    out = []
    rels = [st.probe] + ([st.build.rel] if st.build.rel is not None else [])
    for rel in rels:
        out += ['%s: %s' % (where, sql) for where, sql in rel.ddl]
    return out


def key_features(st):
    fk_expr = any(k[0][2] for k in st.keys)
    bk_expr = any(k[1][2] for k in st.keys)
    f_mismatch = any(k[2].mismatch for k in st.keys)
    b_mismatch = any(k[3].mismatch for k in st.keys)
    return fk_expr, bk_expr, f_mismatch, b_mismatch


def classify(st, on_outcome):
    """Which of the issue's classes a finding falls under, from what the
    statement has (a heuristic: the first that applies), with "+ci" when a
    key column has a nondeterministic collation."""
    cls = issue_class(st, on_outcome)
    if any(k[2].collation or k[2].remote_collation or k[3].collation for k in st.keys) \
            and cls != 'collation':
        cls += '+ci'
    return cls


def issue_class(st, on_outcome):
    fk_expr, bk_expr, f_mismatch, b_mismatch = key_features(st)
    b = st.build
    msg = on_outcome.error[1] if on_outcome.error else ''
    if 'relation with OID 0' in msg or (b.rel is None and b.kind in ('series', 'values')) or \
            (b.kind in ('subselect', 'cte') and bk_expr):
        return '1-key-over-non-table'
    foreign_build = b.kind in ('foreign-other', 'foreign-same', 'partitioned')
    if foreign_build and b_mismatch:
        return '2-foreign-build-declared-type'
    if fk_expr and f_mismatch:
        return '5-expression-over-declared-type'
    if foreign_build:
        return '3-foreign-build-cast'
    bpchar = any(k[2].type.startswith('char') and
                 any(not t.startswith('char') for t in k[2].remote_types()) for k in st.keys)
    if bpchar and not fk_expr:
        return '4-char-declared-over-text'
    if any(k[2].collation or k[2].remote_collation or k[3].collation for k in st.keys):
        return 'collation'
    if f_mismatch:
        return 'declared-type-other'
    return 'other'


def describe(st, schema, seed, r, q, kind, i, a, b, plan):
    lines = ['# FINDING %s (%s): seed %s round %d query %d, execution %d, form %s, mode %s, build %s'
             % (kind, classify(st, a), seed, r, q, i, st.form, st.mode, st.build.kind)]
    lines += ['#   schema %s' % d for d in relevant_ddl(st)]
    if st.settings:
        lines.append('#   settings: %s' % '; '.join(st.settings))
    lines.append('#   statement: %s' % st.sql)
    if st.trace:
        # what ran before the execution that differed, data changes included
        lines.append('#   executions: %s' % '; '.join(t for t in st.trace[:2 * i + 2] if t))
    if kind == 'errors_on_only':
        lines.append('#   on: ERROR %s %s' % a.error)
    else:
        lines.append('#   on:  %d rows %s' % (len(a.rows), ' '.join(a.rows[:6])[:300]))
        lines.append('#   off: %d rows %s' % (len(b.rows), ' '.join(b.rows[:6])[:300]))
    remote = [l.strip() for l in plan.splitlines() if 'Remote SQL' in l or 'bloom_agg' in l]
    lines += ['#   plan: %s' % l[:400] for l in remote[:4]]
    return '\n'.join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--local', required=True)
    p.add_argument('--remote', action='append', required=True)
    p.add_argument('--seconds', type=float, default=0)
    p.add_argument('--queries', type=int, default=0)
    p.add_argument('--seed', default=os.environ.get('BLOOM_FUZZ_SEED') or str(random.randrange(10 ** 9)))
    p.add_argument('--round', type=int)
    p.add_argument('--query', type=int)
    p.add_argument('--per-round', type=int, default=40)
    p.add_argument('--show', type=int, default=5, help='findings printed in full as they come')
    p.add_argument('--verbose', action='store_true', help='print every finding in full')
    p.add_argument('--show-errors', action='store_true', help='print statements that fail both ways')
    p.add_argument('--statement-log', help='file: a line per statement (round, query, form, mode, '
                   'build side, fired 0/1, outcome), to compare two builds on one seed')
    args = p.parse_args()
    if not args.seconds and not args.queries and args.round is None:
        args.seconds = 120
    Fuzzer(args).main()


if __name__ == '__main__':
    main()
