#!/usr/bin/python3
"""Checks doc/format.md and the sizing rules of doc/layouts.md against a server.

bloomformat.py reads, writes and probes filters from doc/format.md alone;
this program has the server build filters of every layout and compares them
bit for bit with what bloomformat.py builds from the same values' hashes,
sends it filters that bloomformat.py built (with seeds and insert counts
above 2^63), mutates headers to see that both sides reject the same ones,
checks the text form's length, bloom_info's bytes and the shapes of
bloom_empty against the rules of doc/layouts.md (bloomsizing.py), and
hashes bigints (hash scheme 3: the whole 64-bit range, and within 32
bits PostgreSQL's own hash) as bloom_hash does, building filters of them
without the server's hashes.  Connects with the libpq environment (PGHOST, PGPORT, PGDATABASE, PGUSER)
to a database with the extension.
"""

import base64
import math
import random

import psycopg2

import bloomformat as bf
import bloomsizing as bs
from checks import Checks

C = Checks("check_format.py")
RNG = random.Random(18)


def connect():
    conn = psycopg2.connect("")
    conn.autocommit = True
    return conn


def hashes(cur, values, sqltype, seed):
    """bloom_hash of each value, in order, as the signed bigints SQL returns."""
    cur.execute("SELECT bloom_hash(v, %%s::int8) FROM unnest(%%s::%s[]) WITH ORDINALITY u(v, i)"
                " ORDER BY i" % sqltype, (seed, values))
    return [h for (h,) in cur.fetchall()]


def server_filter(cur, shape_sql, values, sqltype):
    cur.execute("SELECT bloom_add_all(%s, %%s::%s[])::bytea" % (shape_sql, sqltype), (values,))
    return bytes(cur.fetchone()[0])


def server_contains(cur, data, values, sqltype):
    cur.execute("SELECT bloom_contains(%%s::bytea::bloom, v) FROM unnest(%%s::%s[])"
                " WITH ORDINALITY u(v, i) ORDER BY i" % sqltype, (data, values))
    return [c for (c,) in cur.fetchall()]


def empty_like(f):
    return bf.Bloom(f.layout, f.nbits, f.nhashes, f.seed, f.rows, f.locators,
                    f.flags & bf.TIES_FIRST)


# Server-built filters: every layout, word-aligned or not, k across the
# blocked layout's seven-per-word boundary, a matrix filter filled past full.
SERVER_SHAPES = [
    ("bloom_empty(1000, 0.01)", "int8", 1000),
    ("bloom_empty_with(1001, 3)", "text", 300),
    ("bloom_empty(500, 1e-9)", "int8", 500),
    ("bloom_empty(1000, 0.01, 'blocked')", "int8", 1000),
    ("bloom_empty(300, 1e-6, 'blocked')", "text", 300),
    ("bloom_empty(300, 1e-12, 'blocked')", "int8", 300),
    ("bloom_empty(1000, 0.01, 'matrix')", "int8", 1000),
    ("bloom_empty_matrix(6, 1000, 5, 3)", "text", 3000),
    ("bloom_empty_matrix(7, 100, 64, 7)", "int8", 40),
    ("bloom_empty_matrix(8, 1024, 5, 3)", "int8", 2000),
    ("bloom_empty_matrix(8, 1024, 5, 3, 'first')", "int8", 2000),
]


def sample(sqltype, n, offset=0):
    if sqltype == "text":
        return ["key-%d" % (i + offset) for i in range(n)]
    return [i + offset for i in range(n)]


def check_server_built(cur):
    for shape, sqltype, n in SERVER_SHAPES:
        members = sample(sqltype, n)
        others = sample(sqltype, 3000, offset=10 ** 6)
        data = server_filter(cur, shape, members, sqltype)
        try:
            f = bf.Bloom.from_bytes(data)
        except bf.FormatError as e:
            C.check("%s: the server's bytes decode" % shape, False, e)
            continue
        mine = empty_like(f)
        for h in hashes(cur, members, sqltype, f.seed):
            mine.add_hash(h)
        C.equal("%s (%s, k=%d, full_at %d): built from the doc, the same bytes as the server's"
                % (shape, bf.LAYOUT_NAMES[f.layout], f.nhashes, f.full_at),
                mine.to_bytes().hex(), data.hex())
        probes = [f.contains_hash(h) for h in hashes(cur, members + others, sqltype, f.seed)]
        C.check("%s: the doc's probe finds all %d members" % (shape, n), all(probes[:n]))
        theirs = server_contains(cur, data, others, sqltype)
        C.equal("%s: the doc's probe agrees with bloom_contains on 3000 non-members (%d positives)"
                % (shape, sum(theirs)), probes[n:], theirs)


# Client-built filters, seeds with bit 63 set included: the server must read
# them, probe them like the client does, and add values to them the same way.
CLIENT_SHAPES = [
    (bf.CLASSIC, 777, 5, 0, 0, 0),
    (bf.CLASSIC, 4096, 12, 0, 0, 0),
    (bf.BLOCKED, 2048, 7, 0, 0, 0),
    (bf.BLOCKED, 2048, 8, 0, 0, 0),
    (bf.BLOCKED, 1024, 15, 0, 0, 0),
    (bf.MATRIX, 4 * 333, 6, 4, 2, 0),
    (bf.MATRIX, 9 * 64, 4, 9, 3, 0),
    (bf.MATRIX, 8 * 50, 4, 8, 3, 0),              # groups of 3, 3 and 2 rows
    (bf.MATRIX, 8 * 50, 4, 8, 3, bf.TIES_FIRST),
]


def check_client_built(cur):
    for layout, nbits, k, rows, locators, flags in CLIENT_SHAPES:
        seed = RNG.getrandbits(64) | (1 << 63)
        name = "client-built %s m=%d k=%d flags=%d seed=%d" % (
            bf.LAYOUT_NAMES[layout], nbits, k, flags, seed)
        f = bf.Bloom(layout, nbits, k, seed, rows, locators, flags)
        members = sample("int8", 150)
        extra = sample("int8", 50, offset=500)
        for h in hashes(cur, members, "int8", seed - (1 << 64)):
            f.add_hash(h)
        data = f.to_bytes()
        found = server_contains(cur, data, members, "int8")
        C.check("%s: the server finds every member" % name, all(found), found.count(False))
        others = sample("int8", 2000, offset=10 ** 6)
        mine = [f.contains_hash(h) for h in hashes(cur, others, "int8", seed - (1 << 64))]
        C.equal("%s: bloom_contains agrees with the doc's probe on 2000 non-members" % name,
                server_contains(cur, data, others, "int8"), mine)
        cur.execute("SELECT bloom_add_all(%s::bytea::bloom, %s::int8[])::bytea", (data, extra))
        theirs = bytes(cur.fetchone()[0])
        for h in hashes(cur, extra, "int8", seed - (1 << 64)):
            f.add_hash(h)
        C.equal("%s: the server adds 50 values to it exactly as the doc does" % name,
                theirs.hex(), f.to_bytes().hex())
        cur.execute("SELECT seed, inserted FROM bloom_info(%s::bytea::bloom)", (data,))
        C.equal("%s: bloom_info shows seed as the signed bigint of the same 64 bits" % name,
                cur.fetchone(), (seed - (1 << 64), 150))


def check_counts(cur):
    """seed and inserted are unsigned; bloom_info's bigint columns and their limits."""
    for inserted, shown in [(2 ** 63 - 1, 2 ** 63 - 1), (2 ** 63, 2 ** 63 - 1),
                            (2 ** 63 + 5, 2 ** 63 - 1), (2 ** 64 - 1, 2 ** 63 - 1)]:
        f = bf.Bloom(bf.CLASSIC, 128, 2)
        f.inserted = inserted
        data = f.to_bytes()
        cur.execute("SELECT f::bytea, (bloom_info(f)).inserted, bloom_add(f, 1)::bytea"
                    " FROM (SELECT %s::bytea::bloom f) s", (data,))
        back, info, added = cur.fetchone()
        C.equal("inserted %d round-trips through bytea" % inserted, bytes(back).hex(), data.hex())
        C.equal("inserted %d: bloom_info shows %d" % (inserted, shown), info, shown)
        C.equal("inserted %d: bloom_add counts on, saturating at 2^64-1" % inserted,
                bf.Bloom.from_bytes(added).inserted, min(inserted + 1, 2 ** 64 - 1))
    a = bf.Bloom(bf.CLASSIC, 128, 2)
    a.inserted = 2 ** 64 - 10
    cur.execute("SELECT (%s::bytea::bloom | %s::bytea::bloom)::bytea", (a.to_bytes(), a.to_bytes()))
    C.equal("a union's inserted (the sum) saturates at 2^64-1",
            bf.Bloom.from_bytes(cur.fetchone()[0]).inserted, 2 ** 64 - 1)


def check_sizes(cur):
    """The text form is 4*ceil(binary/3) characters; bloom_info.bytes is the varlena size."""
    for shape in ["bloom_empty_with(64, 1)", "bloom_empty_with(128, 1)", "bloom_empty_with(192, 1)",
                  "bloom_empty(1000, 0.01)", "bloom_empty(1000, 0.01, 'blocked')",
                  "bloom_empty(1000, 0.01, 'matrix')", "bloom_empty_matrix(6, 1000, 5, 3)"]:
        cur.execute("SELECT f::bytea, f::text, (bloom_info(f)).bytes, pg_column_size(f)"
                    " FROM (SELECT bloom_add(%s, 7) f) s" % shape)
        data, text, info_bytes, colsize = cur.fetchone()
        data = bytes(data)
        f = bf.Bloom.from_bytes(data)
        C.equal("%s: binary length is 60 + 8*ceil(m/64)" % shape,
                len(data), 60 + 8 * bf.words_for_bits(f.nbits))
        C.equal("%s: text is the base64 of the binary form" % shape,
                text, base64.b64encode(data).decode())
        C.equal("%s: text length is 4*ceil(%d/3)" % (shape, len(data)),
                len(text), 4 * math.ceil(len(data) / 3))
        counters = 8 * f.rows if f.layout == bf.MATRIX else 0
        C.equal("%s: bloom_info.bytes is 4 + binary length%s" %
                (shape, " + 8 per row" if counters else ""), info_bytes, 4 + len(data) + counters)
        C.equal("%s: pg_column_size of a computed value equals bloom_info.bytes" % shape,
                colsize, info_bytes)
    cur.execute("CREATE TEMP TABLE stored AS SELECT bloom_empty(100000) f")
    cur.execute("SELECT pg_column_size(f), (bloom_info(f)).bytes FROM stored")
    stored, info_bytes = cur.fetchone()
    C.check("a stored empty filter is compressed: pg_column_size %d < bloom_info.bytes %d"
            % (stored, info_bytes), stored < info_bytes)


def check_sizing(cur):
    """bloom_empty's shapes against the rules of doc/layouts.md (bloomsizing.py)."""
    for p, ns in [(0.01, range(1, 2001)), (0.1, range(1, 2001, 7)),
                  (1e-4, range(1, 2001, 13)), (1e-9, range(1, 20001, 97))]:
        cur.execute("SELECT n, nbits, nhashes FROM unnest(%s::int8[]) n,"
                    " bloom_info(bloom_empty(n, %s))", (list(ns), p))
        rows = cur.fetchall()
        wrong = [(n, m, k) for n, m, k in rows if bs.shape(n, p, "classic")[:2] != (m, k)]
        C.check("bloom_empty(n, %g), %d capacities from %d to %d: m and k as doc/layouts.md says"
                % (p, len(rows), ns[0], ns[-1]), rows and not wrong, wrong[:5])
    cases = {"blocked": ([1, 2, 10, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7],
                         [0.5, 0.1, 0.01, 1e-4, 1e-6, 1e-9]),
             "matrix": ([1, 5, 10, 30, 2047, 2048, 4096, 10 ** 5, 10 ** 7],
                        [0.5, 0.1, 0.01, 1e-4, 1e-6, 1e-9])}
    for layout, (ns, ps) in cases.items():
        cur.execute("SELECT n, p, nbits, nhashes, coalesce(rows, 0), coalesce(locators, 0)"
                    " FROM unnest(%s::int8[]) n, unnest(%s::float8[]) p,"
                    " bloom_info(bloom_empty(n, p, %s))", (ns, ps, layout))
        rows = cur.fetchall()
        wrong = [r for r in rows if bs.shape(r[0], r[1], layout) != tuple(r[2:])]
        C.check("bloom_empty(n, p, '%s'), %d shapes: as doc/layouts.md says" % (layout, len(rows)),
                len(rows) == len(ns) * len(ps) and not wrong, wrong[:3])


def mutations(data):
    """Single-byte changes of the header: each byte set to 0, 1, 0xff, and flipped in bit 0 and 7."""
    for i in range(bf.HEADER_BYTES):
        for v in {0, 1, 0xFF, data[i] ^ 1, data[i] ^ 0x80}:
            if v != data[i]:
                yield data[:i] + bytes([v]) + data[i + 1:]
    yield data[:-8]
    yield data + bytes(8)
    yield data[:-1] + bytes([0x80])      # a bit past m in the last word (when m is not a multiple of 64)


def same_verdicts(cur, variants):
    """How many byte strings the doc's rules and the server accept or reject
    alike (an accepted one must read back to the same bytes); the first
    disagreements."""
    agree, disagree = 0, []
    for data in variants:
        try:
            bf.Bloom.from_bytes(data)
            doc_ok = True
        except bf.FormatError:
            doc_ok = False
        try:
            cur.execute("SELECT %s::bytea::bloom::bytea", (data,))
            back = bytes(cur.fetchone()[0])
            server_ok = True
        except psycopg2.Error:
            back, server_ok = None, False
        if doc_ok == server_ok and (not server_ok or back == data):
            agree += 1
        else:
            disagree.append((data[:bf.HEADER_BYTES].hex(), doc_ok, server_ok))
    return agree, disagree[:3]


def check_rejections(cur):
    """Every header change is either rejected by both sides or read the same by both."""
    for shape in ["bloom_add(bloom_empty_with(1001, 3), 5)",
                  "bloom_add(bloom_empty(100, 0.01, 'blocked'), 5)",
                  "bloom_add(bloom_empty_matrix(6, 1000, 5, 3), 5)",
                  "bloom_add(bloom_empty_matrix(8, 1024, 5, 3, 'first'), 5)"]:
        cur.execute("SELECT (%s)::bytea" % shape)
        variants = list(mutations(bytes(cur.fetchone()[0])))
        agree, disagree = same_verdicts(cur, variants)
        C.check("%s: %d mutated headers, the doc's rules and the server accept the same ones"
                % (shape, len(variants)), agree == len(variants), disagree)


def full_range(n, offset=0):
    """n bigints over the whole 64-bit range, and the edges of 32 bits."""
    rng = random.Random(64 + offset)
    edges = [0, 1, -1, 2 ** 31 - 1, -2 ** 31, 2 ** 31, -2 ** 31 - 1, 2 ** 32, 2 ** 63 - 1, -2 ** 63]
    return edges + [rng.getrandbits(64) - 2 ** 63 for _ in range(n)]


def check_wide_hash(cur):
    """bloomformat.int8_hash against bloom_hash, every seed kind; filters of
    full-range bigints built without the server's hashes, byte for byte."""
    values = full_range(3000)
    for seed in [0, 1, 7, 2 ** 63 + 12345, 2 ** 64 - 1]:
        theirs = [h & bf.MASK64 for h in hashes(cur, values, "int8", seed - (1 << 64) if seed >= 2 ** 63 else seed)]
        mine = [bf.int8_hash(v, seed) for v in values]
        wrong = [(v, hex(a), hex(b)) for v, a, b in zip(values, mine, theirs) if a != b]
        C.check("bigint hash (scheme 3), seed %d: the doc's hash of %d values equals bloom_hash"
                % (seed, len(values)), not wrong, wrong[:3])
    # the same 64-bit quantity in other types hashes alike
    cur.execute("SELECT bloom_hash('2000-01-01'::timestamp + (v::text || ' microseconds')::interval, 0),"
                " bloom_hash((v::text || ' microseconds')::interval, 0)"
                " FROM unnest(%s::int8[]) v", ([2 ** 40 + 3, 5, -2 ** 45],))
    rows = cur.fetchall()
    C.equal("timestamps and intervals hash as the bigint of their microseconds",
            [(a & bf.MASK64, b & bf.MASK64) for a, b in rows],
            [(bf.int8_hash(v, 0), bf.int8_hash(v, 0)) for v in [2 ** 40 + 3, 5, -2 ** 45]])
    cur.execute("SELECT bloom_hash('178000000 years'::interval, 3)")
    span = 178000000 * 12 * 30 * 86400 * 10 ** 6
    C.equal("an interval span beyond 64 bits: both words hashed", cur.fetchone()[0] & bf.MASK64,
            bf.int128_hash(span, 3))
    members = full_range(500)
    others = full_range(3000, offset=1)[10:]
    for shape in ["bloom_empty(500, 1e-6)", "bloom_empty(500, 1e-4, 'blocked')",
                  "bloom_empty(500, 0.01, 'matrix')"]:
        data = server_filter(cur, shape, members, "int8")
        f = bf.Bloom.from_bytes(data)
        mine = empty_like(f)
        for v in members:
            mine.add_hash(bf.int8_hash(v, f.seed))
        C.equal("%s of full-range bigints, scheme %d: built from the doc's hash, the same bytes"
                % (shape, f.hash_scheme), mine.to_bytes().hex(), data.hex())
        C.equal("%s: the doc's probe of 3000 other bigints agrees with bloom_contains" % shape,
                [f.contains_hash(bf.int8_hash(v, f.seed)) for v in others],
                server_contains(cur, data, others, "int8"))
    # a list (bloom_agg of at most 240 values) of them
    cur.execute("SELECT bloom_agg(v)::bytea FROM unnest(%s::int8[]) v", (members[:200],))
    data = bytes(cur.fetchone()[0])
    mine = bf.Bloom(bf.EXPLICIT, 0, 0)
    mine.flags = bf.DATA_SIZED
    for v in members[:200]:
        mine.add_hash(bf.int8_hash(v, 0))
    C.equal("bloom_agg of 200 full-range bigints: the doc's list of scheme 3, the same bytes",
            mine.to_bytes().hex(), data.hex())
    # a stored filter of scheme 2 hashes with hashint8extended: the doc's
    # scheme-2 hash, and the server adds to it and probes it so
    f = bf.Bloom(bf.CLASSIC, 4096, 7)
    f.hash_scheme = 2
    for v in members[:300]:
        f.add_hash(bf.int8_hash(v, 0, scheme=2))
    data = f.to_bytes()
    C.equal("a scheme-2 filter of full-range bigints: bloom_contains finds every member",
            server_contains(cur, data, members[:300], "int8"), [True] * 300)
    C.equal("... and agrees with the doc's scheme-2 probe on 3000 others",
            server_contains(cur, data, others, "int8"),
            [f.contains_hash(bf.int8_hash(v, 0, scheme=2)) for v in others])
    cur.execute("SELECT bloom_add_all(%s::bytea::bloom, %s::int8[])::bytea", (data, members[300:]))
    theirs = bytes(cur.fetchone()[0])
    for v in members[300:]:
        f.add_hash(bf.int8_hash(v, 0, scheme=2))
    C.equal("... and the server adds bigints to it under scheme 2 as the doc does",
            theirs.hex(), f.to_bytes().hex())


def check_explicit(cur):
    """bloom_agg of at most 240 values: the sorted list of bloom_hash, probed by binary search."""
    for sqltype, n in [("int8", 0), ("text", 3), ("int8", 240)]:
        members = sample(sqltype, n)
        others = sample(sqltype, 3000, offset=10 ** 6)
        cur.execute("SELECT bloom_agg(v)::bytea FROM unnest(%%s::%s[]) v" % sqltype, (members,))
        data = bytes(cur.fetchone()[0])
        name = "bloom_agg of %d %s values" % (n, sqltype)
        try:
            f = bf.Bloom.from_bytes(data)
        except bf.FormatError as e:
            C.check("%s: the server's bytes decode" % name, False, e)
            continue
        mine = bf.Bloom(bf.EXPLICIT, 0, 0, f.seed)
        mine.flags, mine.hash_scheme = 0x01, f.hash_scheme
        for h in hashes(cur, members, sqltype, 0):
            mine.add_hash(h)
        C.equal("%s: built from the doc (explicit), the same bytes as the server's" % name,
                mine.to_bytes().hex(), data.hex())
        probes = [f.contains_hash(h) for h in hashes(cur, members + others, sqltype, 0)]
        C.check("%s: the doc's probe finds all members" % name, all(probes[:n]))
        C.equal("%s: the doc's probe agrees with bloom_contains on 3000 non-members" % name,
                probes[n:], server_contains(cur, data, others, sqltype))
    cur.execute("SELECT bloom_agg(v)::bytea FROM generate_series(1, 3) v")
    base = bytes(cur.fetchone()[0])
    # the header mutations, and the first two hashes swapped
    variants = list(mutations(base)) + [base[:60] + base[68:76] + base[60:68] + base[76:]]
    agree, disagree = same_verdicts(cur, variants)
    C.check("bloom_agg of 3 values: %d mutated lists, the doc's rules and the server accept the same ones"
            % len(variants), agree == len(variants), disagree)


def main():
    conn = connect()
    cur = conn.cursor()
    check_server_built(cur)
    check_client_built(cur)
    check_counts(cur)
    check_sizes(cur)
    check_sizing(cur)
    check_rejections(cur)
    check_explicit(cur)
    check_wide_hash(cur)
    conn.close()
    C.finish()


if __name__ == "__main__":
    main()
