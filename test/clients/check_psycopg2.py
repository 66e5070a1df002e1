#!/usr/bin/python3
"""Checks every psycopg2 claim of doc/clients.md against a server.

Connects with the libpq environment (PGHOST, PGPORT, PGDATABASE, PGUSER) to
a database with the extension; prints one line per check and exits non-zero
if any fails.
"""

import base64
import io
import struct

import psycopg2
import psycopg2.extensions

import bloomformat as bf
from checks import Checks

C = Checks("check_psycopg2.py")


def expect_error(cur, name, sql, args, sqlstate, message):
    """Runs sql, which must fail with sqlstate and a message containing message."""
    try:
        cur.execute(sql, args)
    except psycopg2.Error as e:
        return C.check(name, e.pgcode == sqlstate and message in e.pgerror,
                       "%s %s" % (e.pgcode, e.pgerror.strip()))
    return C.check(name, False, "no error")


def check_parameters(cur):
    cur.execute("CREATE TEMP TABLE filters (id int PRIMARY KEY, f bloom NOT NULL)")
    cur.execute("INSERT INTO filters VALUES"
                " (1, bloom_add_all(bloom_empty(1000), ARRAY['apple', 'pear']::text[])),"
                " (2, bloom_add_all(bloom_empty(1000), ARRAY[1.5, 2.5]::float8[])),"
                " (3, bloom_add_all(bloom_empty(1000), ARRAY[42, 43]::int8[]))")
    expect_error(cur, "a str as an untyped %s value: could not determine polymorphic type",
                 "SELECT bloom_contains(f, %s) FROM filters WHERE id = 1", ("apple",),
                 "42804", "could not determine polymorphic type because input has type unknown")
    expect_error(cur, "the same through the operator @>",
                 "SELECT f @> %s FROM filters WHERE id = 1", ("apple",),
                 "42804", "could not determine polymorphic type")
    expect_error(cur, "and through bloom_add and <@",
                 "SELECT bloom_add(f, %s), %s <@ f FROM filters WHERE id = 1", ("apple", "pear"),
                 "42804", "could not determine polymorphic type")
    cur.execute("SELECT bloom_contains(f, %s::text), f @> %s::text, bloom_contains(f, %s::text)"
                " FROM filters WHERE id = 1", ("apple", "pear", "plum"))
    C.equal("%s::text: 'apple' and 'pear' found, 'plum' not", cur.fetchone(), (True, True, False))
    cur.execute("SELECT bloom_contains(f, %s), bloom_contains(f, %s) FROM filters WHERE id = 3",
                (42, 2 ** 40))
    C.equal("a Python int needs no cast (an integer literal; int4 and int8 hash alike)",
            cur.fetchone(), (True, False))
    cur.execute("SELECT bloom_contains(f, %s), bloom_contains(f, %s::float8) FROM filters"
                " WHERE id = 2", (1.5, 1.5))
    C.equal("a Python float is a numeric literal: not found in a float8 filter until cast",
            cur.fetchone(), (False, True))
    cur.execute("SELECT bloom_add_all(bloom_empty(100), %s) @> 'plum'::text", (["plum", "fig"],))
    C.equal("a list of str is an ARRAY of text: bloom_add_all needs no cast", cur.fetchone()[0], True)


def check_reading(cur):
    cur.execute("SELECT f, f::bytea FROM filters WHERE id = 1")
    text, raw = cur.fetchone()
    C.check("a bloom column arrives as str, the base64 text form", isinstance(text, str), type(text))
    C.check("f::bytea arrives as a memoryview", isinstance(raw, memoryview), type(raw))
    C.equal("base64-decoding the text gives the ::bytea bytes", base64.b64decode(text), bytes(raw))
    cur.execute("SELECT 'bloom'::regtype::oid")
    oid = cur.fetchone()[0]
    bloom_bytes = psycopg2.extensions.new_type(
        (oid,), "BLOOM", lambda s, _cur: None if s is None else base64.b64decode(s))
    psycopg2.extensions.register_type(bloom_bytes, cur.connection)
    cur.execute("SELECT f FROM filters WHERE id = 1")
    C.equal("a typecaster registered for the bloom OID returns bytes", cur.fetchone()[0], bytes(raw))
    cur.execute("SELECT NULL::bloom")
    C.equal("... and None for NULL", cur.fetchone()[0], None)


def check_sending(cur):
    cur.execute("SELECT f::bytea, f::text FROM filters WHERE id = 1")
    raw, text = cur.fetchone()
    raw = bytes(raw)
    cur.execute("SELECT %s::bytea::bloom = f, %s::bloom = f, %s::bloom = f FROM filters WHERE id = 1",
                (raw, raw, text))
    C.equal("bytes as %s::bytea::bloom or %s::bloom, base64 as %s::bloom: the same filter",
            cur.fetchone(), (True, True, True))
    cur.execute("SELECT bloom_contains(%s, 'apple'::text)", (text,))
    C.equal("base64 text as an untyped filter argument resolves to bloom", cur.fetchone()[0], True)
    expect_error(cur, "bytes as an untyped filter argument: bloom_contains(bytea, text) does not exist",
                 "SELECT bloom_contains(%s, 'apple'::text)", (raw,),
                 "42883", "function bloom_contains(bytea, text) does not exist")
    # A filter built in Python from doc/format.md, sent and probed.
    f = bf.Bloom(bf.CLASSIC, 1024, 5)
    cur.execute("SELECT bloom_hash(v, 0) FROM unnest(%s::int8[]) v", ([7, 8, 9],))
    for (h,) in cur.fetchall():
        f.add_hash(h)
    cur.execute("SELECT bloom_contains(%s::bytea::bloom, v) FROM unnest(%s::int8[]) v",
                (f.to_bytes(), [7, 8, 9]))
    C.equal("a filter built client-side, sent as bytea, holds its values",
            [c for (c,) in cur.fetchall()], [True, True, True])
    # A bigint hashed by the client itself (doc/format.md, hash scheme 3).
    g = bf.Bloom(bf.CLASSIC, 1024, 5)
    g.add_hash(bf.int8_hash(1 << 40, 0))
    cur.execute("SELECT bloom_contains(%s::bytea::bloom, (1::int8 << 40))", (g.to_bytes(),))
    C.equal("a bigint beyond 32 bits hashed client-side is found by the server",
            cur.fetchone()[0], True)
    cur.execute("INSERT INTO filters VALUES (4, %s::bytea::bloom) RETURNING f::bytea", (f.to_bytes(),))
    C.equal("... and stores and reads back the same bytes", bytes(cur.fetchone()[0]), f.to_bytes())
    expect_error(cur, "a corrupted filter is rejected: invalid_binary_representation",
                 "SELECT %s::bytea::bloom", (f.to_bytes()[:-1],), "22P03", "invalid bloom filter")
    expect_error(cur, "... and as text: invalid_text_representation",
                 "SELECT %s::bloom", (base64.b64encode(f.to_bytes()[:-1]).decode(),),
                 "22P02", "invalid bloom filter")


PGCOPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


def read_pgcopy(data):
    """The rows of a binary COPY stream: lists of fields, each bytes or None."""
    assert data.startswith(PGCOPY_SIGNATURE)
    pos = len(PGCOPY_SIGNATURE) + 4
    (ext,) = struct.unpack_from(">i", data, pos)
    pos += 4 + ext
    rows = []
    while True:
        (nfields,) = struct.unpack_from(">h", data, pos)
        pos += 2
        if nfields == -1:
            return rows
        row = []
        for _ in range(nfields):
            (size,) = struct.unpack_from(">i", data, pos)
            pos += 4
            row.append(None if size < 0 else data[pos:pos + size])
            pos += max(size, 0)
        rows.append(row)


def write_pgcopy(rows):
    out = io.BytesIO()
    out.write(PGCOPY_SIGNATURE + struct.pack(">ii", 0, 0))
    for row in rows:
        out.write(struct.pack(">h", len(row)))
        for field in row:
            out.write(struct.pack(">i", -1) if field is None else
                      struct.pack(">i", len(field)) + field)
    out.write(struct.pack(">h", -1))
    out.seek(0)
    return out


def check_copy(cur):
    out = io.BytesIO()
    cur.copy_expert("COPY (SELECT id, f FROM filters ORDER BY id) TO STDOUT (FORMAT binary)", out)
    rows = read_pgcopy(out.getvalue())
    cur.execute("SELECT f::bytea FROM filters ORDER BY id")
    want = [bytes(b) for (b,) in cur.fetchall()]
    C.equal("COPY TO (FORMAT binary): each bloom field is the ::bytea form",
            [r[1] for r in rows], want)
    cur.execute("CREATE TEMP TABLE copied (LIKE filters)")
    cur.copy_expert("COPY copied FROM STDIN (FORMAT binary)", write_pgcopy(rows))
    cur.execute("SELECT count(*) FROM filters JOIN copied USING (id) WHERE filters.f = copied.f")
    C.equal("COPY FROM (FORMAT binary) of those rows: every filter equal", cur.fetchone()[0], len(want))
    f = bf.Bloom(bf.BLOCKED, 1024, 8, seed=5)
    id_field = struct.pack(">i", 10)
    cur.copy_expert("COPY copied FROM STDIN (FORMAT binary)", write_pgcopy([[id_field, f.to_bytes()]]))
    cur.execute("SELECT f::bytea, (bloom_info(f)).layout FROM copied WHERE id = 10")
    raw, layout = cur.fetchone()
    C.equal("COPY FROM (FORMAT binary) of a client-built blocked filter",
            (bytes(raw), layout), (f.to_bytes(), "blocked"))
    bad = bytearray(f.to_bytes())
    bad[0] = 9
    try:
        cur.copy_expert("COPY copied FROM STDIN (FORMAT binary)",
                        write_pgcopy([[struct.pack(">i", 11), bytes(bad)]]))
        C.check("COPY FROM (FORMAT binary) rejects a bad header", False, "accepted")
    except psycopg2.Error as e:
        C.check("COPY FROM (FORMAT binary) rejects a bad header", e.pgcode == "22P03", e.pgerror)
    text = io.StringIO()
    cur.copy_expert("COPY (SELECT f FROM filters ORDER BY id) TO STDOUT", text)
    C.equal("COPY TO in text format: one base64 line per filter",
            [base64.b64decode(line) for line in text.getvalue().splitlines()], want)


def main():
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    check_parameters(cur)
    check_reading(cur)
    check_sending(cur)
    check_copy(cur)
    conn.close()
    C.finish()


if __name__ == "__main__":
    main()
