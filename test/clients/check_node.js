#!/usr/bin/env node
// Checks every node-postgres claim of doc/clients.md against a server.
//
// Connects with the libpq environment (PGHOST, PGPORT, PGDATABASE, PGUSER),
// which node-postgres reads too, to a database with the extension; prints
// one line per check and exits non-zero if any fails.  Needs `npm ci` in
// this directory (pg and pg-copy-streams, versions pinned in package.json).
'use strict'

const { pipeline } = require('node:stream/promises')
const { Readable, Writable } = require('node:stream')
const { isDeepStrictEqual } = require('node:util')
const pg = require('pg')
const { to: copyTo, from: copyFrom } = require('pg-copy-streams')

let passed = 0
let failed = 0

function check(name, ok, detail) {
  if (ok) {
    passed++
    console.log(`ok - ${name}`)
  } else {
    failed++
    console.log(`not ok - ${name}${detail === undefined ? '' : ': ' + detail}`)
  }
}

function equal(name, got, want) {
  check(name, isDeepStrictEqual(got, want), `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`)
}

async function expectError(client, name, query, values, sqlstate, message) {
  try {
    await client.query(query, values)
    check(name, false, 'no error')
  } catch (e) {
    check(name, e.code === sqlstate && e.message.includes(message), `${e.code} ${e.message}`)
  }
}

const FILTER = "bloom_add_all(bloom_empty(1000), ARRAY['apple', 'pear']::text[])"

async function checkParameters(client) {
  await client.query(`CREATE TEMP TABLE filters (id int PRIMARY KEY, f bloom NOT NULL)`)
  await client.query(`INSERT INTO filters VALUES (1, ${FILTER}),
                      (2, bloom_add_all(bloom_empty(1000), ARRAY[42, 43]::int8[]))`)
  await expectError(client, 'an untyped $1 value: could not determine polymorphic type',
    'SELECT bloom_contains(f, $1) FROM filters WHERE id = 1', ['apple'],
    '42804', 'could not determine polymorphic type because input has type unknown')
  await expectError(client, 'a JavaScript number too (sent untyped, unlike psycopg2)',
    'SELECT bloom_contains(f, $1) FROM filters WHERE id = 2', [42],
    '42804', 'could not determine polymorphic type')
  await expectError(client, 'and through the operator: f @> $1',
    'SELECT f @> $1 FROM filters WHERE id = 1', ['apple'], '42804', 'could not determine polymorphic type')
  let r = await client.query(
    'SELECT bloom_contains(f, $1::text) AS a, f @> $2::text AS b, bloom_contains(f, $3::text) AS c' +
    ' FROM filters WHERE id = 1', ['apple', 'pear', 'plum'])
  equal('$1::text: apple and pear found, plum not', r.rows[0], { a: true, b: true, c: false })
  r = await client.query('SELECT bloom_contains(f, $1::int8) AS a, bloom_contains(f, $2::int8) AS b' +
    ' FROM filters WHERE id = 2', [42, 44n])
  equal('$1::int8 with a number and a BigInt', r.rows[0], { a: true, b: false })
  await expectError(client, 'an untyped array for bloom_add_all: the same error',
    'SELECT bloom_add_all(f, $1) FROM filters WHERE id = 1', [['plum']], '42804', 'could not determine polymorphic type')
  r = await client.query(`SELECT bloom_add_all(bloom_empty(100), $1::text[]) @> 'plum'::text AS a`, [['plum', 'fig']])
  equal('$1::text[] with an array: bloom_add_all holds its elements', r.rows[0], { a: true })
  await expectError(client, 'both arguments parameters, only the filter cast: still unresolved',
    'SELECT bloom_contains($1::bloom, $2)', [null, 'apple'], '42804', 'could not determine polymorphic type')
}

async function checkReading(client) {
  const sql = 'SELECT f, f::bytea AS raw FROM filters WHERE id = 1'
  let r = await client.query(sql)
  const { f, raw } = r.rows[0]
  check('a bloom column arrives as a string, the base64 text form', typeof f === 'string', typeof f)
  check('f::bytea arrives as a Buffer (text mode)', Buffer.isBuffer(raw))
  check('Buffer.from(text, "base64") gives the ::bytea bytes', Buffer.from(f, 'base64').equals(raw))

  // binary: true alone does not ask for binary results: without values the
  // query goes through the simple protocol, whose results are always text.
  r = await client.query({ text: sql, binary: true })
  equal('binary: true without values: the results still come as text',
    r.fields.map((x) => x.format), ['text', 'text'])
  // With values (or queryMode: 'extended') they come in binary, and the
  // protocol layer decodes every field as UTF-8 before any type parser runs.
  r = await client.query({ text: sql, binary: true, queryMode: 'extended' })
  equal("binary: true, queryMode: 'extended': binary results", r.fields.map((x) => x.format), ['binary', 'binary'])
  check('... the filter arrives as a string that is not its bytes',
    typeof r.rows[0].f === 'string' && !Buffer.from(r.rows[0].f, 'utf8').equals(raw))
  check('... and so does its ::bytea (pg has no binary bytea parser)',
    typeof r.rows[0].raw === 'string' && !Buffer.from(r.rows[0].raw, 'utf8').equals(raw))
  r = await client.query({
    text: sql, values: [], binary: true, queryMode: 'extended',
    types: { getTypeParser: () => (v) => v },
  })
  check('... an identity binary parser cannot recover the bytes either (U+FFFD already in place)',
    Buffer.isBuffer(r.rows[0].raw) && !r.rows[0].raw.equals(raw) && r.rows[0].raw.includes(Buffer.from('\ufffd')))

  // The safe ways: text results, with ::bytea or a text parser for the bloom OID.
  const oid = (await client.query(`SELECT 'bloom'::regtype::oid AS oid`)).rows[0].oid
  client.setTypeParser(oid, 'text', (text) => Buffer.from(text, 'base64'))
  r = await client.query(sql)
  check('client.setTypeParser(bloom OID, "text", base64 decode): the column arrives as the bytes',
    Buffer.isBuffer(r.rows[0].f) && r.rows[0].f.equals(raw))
  r = await client.query('SELECT NULL::bloom AS f')
  equal('... and NULL as null', r.rows[0].f, null)
  return raw
}

async function checkSending(client, raw) {
  const text = raw.toString('base64')
  let r = await client.query(
    'SELECT $1::bloom = f AS a, $2::bytea::bloom = f AS b, $3::bloom = f AS c FROM filters WHERE id = 1',
    [raw, raw, text])
  equal('a Buffer as $1::bloom (binary parameter, bloom_recv) or $1::bytea::bloom, base64 as $1::bloom',
    r.rows[0], { a: true, b: true, c: true })
  r = await client.query(`SELECT bloom_contains($1, 'apple'::text) AS a, bloom_contains($2, 'apple'::text) AS b`,
    [raw, text])
  equal('an untyped filter parameter resolves to bloom, as a Buffer or as base64', r.rows[0], { a: true, b: true })
  const bad = Buffer.from(raw)
  bad[0] = 9
  await expectError(client, 'a corrupted filter is rejected: invalid_binary_representation',
    'SELECT $1::bloom', [bad], '22P03', 'invalid bloom filter')
}

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')

function readPgcopy(data) {
  let pos = SIGNATURE.length + 4
  pos += 4 + data.readInt32BE(pos)
  const rows = []
  for (;;) {
    const n = data.readInt16BE(pos)
    pos += 2
    if (n === -1) return rows
    const row = []
    for (let i = 0; i < n; i++) {
      const size = data.readInt32BE(pos)
      pos += 4
      row.push(size < 0 ? null : data.subarray(pos, pos + size))
      pos += Math.max(size, 0)
    }
    rows.push(row)
  }
}

function writePgcopy(rows) {
  const parts = [SIGNATURE, Buffer.alloc(8)]
  for (const row of rows) {
    const n = Buffer.alloc(2)
    n.writeInt16BE(row.length)
    parts.push(n)
    for (const field of row) {
      const size = Buffer.alloc(4)
      size.writeInt32BE(field === null ? -1 : field.length)
      parts.push(size)
      if (field !== null) parts.push(field)
    }
  }
  parts.push(Buffer.from([0xff, 0xff]))
  return Buffer.concat(parts)
}

async function copyOut(client, sql) {
  const chunks = []
  await pipeline(client.query(copyTo(sql)), new Writable({
    write(chunk, _enc, done) { chunks.push(chunk); done() },
  }))
  return Buffer.concat(chunks)
}

async function checkCopy(client) {
  const data = await copyOut(client, 'COPY (SELECT id, f FROM filters ORDER BY id) TO STDOUT (FORMAT binary)')
  check('COPY TO (FORMAT binary) through pg-copy-streams: a PGCOPY stream', data.subarray(0, 11).equals(SIGNATURE))
  const rows = readPgcopy(data)
  const want = (await client.query('SELECT f::bytea AS b FROM filters ORDER BY id')).rows.map((x) => x.b)
  check('... each bloom field is the ::bytea form, byte for byte',
    rows.length === want.length && rows.every((row, i) => row[1].equals(want[i])))
  await client.query('CREATE TEMP TABLE copied (LIKE filters)')
  await pipeline(Readable.from([writePgcopy(rows)]), client.query(copyFrom('COPY copied FROM STDIN (FORMAT binary)')))
  const r = await client.query('SELECT count(*)::int AS n FROM filters JOIN copied USING (id) WHERE filters.f = copied.f')
  equal('COPY FROM (FORMAT binary) of those rows: every filter equal', r.rows[0].n, want.length)
  const text = (await copyOut(client, 'COPY (SELECT f FROM filters ORDER BY id) TO STDOUT')).toString()
  check('COPY TO in text format: one base64 line per filter',
    text.trimEnd().split('\n').every((line, i) => Buffer.from(line, 'base64').equals(want[i])))
}

async function main() {
  const client = new pg.Client()
  await client.connect()
  try {
    await checkParameters(client)
    const raw = await checkReading(client)
    await checkSending(client, raw)
    await checkCopy(client)
  } finally {
    await client.end()
  }
  console.log(`check_node.js: ${passed} passed, ${failed} failed`)
  process.exitCode = failed || !passed ? 1 : 0
}

main().catch((e) => {
  console.log(`not ok - check_node.js stopped: ${e.stack}`)
  process.exitCode = 1
})
