// parquet.mjs: Parquet files written and read by DuckDB (its Node API,
// @duckdb/node-api), to check the extension's 'parquet' formats against a
// real writer and a real reader.
//
//   node parquet.mjs write DIR
//       writes DIR/data.parquet: 20000 rows in two row groups (DuckDB picks
//       their sizes), each value i in 0..1999 ten times, in columns of every
//       physical type (see COLUMNS); dictionary encoded, so DuckDB writes a
//       split-block Bloom filter per column chunk.  Also writes
//         DIR/values.tsv   row group, column, value: the distinct values of
//                          each column chunk, as read back from the file
//         DIR/probes.tsv   column, value, row group, excludes: DuckDB's own
//                          answer (parquet_bloom_probe) for the values of
//                          i in 0..2999 (i >= 2000 is in no row group)
//         DIR/columns.tsv  column, DuckDB type, the PostgreSQL type to read
//                          it as
//   node parquet.mjs probe FILE COLUMN VALUES
//       parquet_bloom_probe(FILE, COLUMN, v) for each line v of the file
//       VALUES (text of the column's value): prints value, row group,
//       excludes
//   node parquet.mjs count FILE COLUMN VALUE
//       SELECT count(*) FROM FILE WHERE COLUMN = VALUE, through DuckDB's
//       scan (which skips row groups whose filter excludes VALUE)
//
// The package is looked up under $BLOOM_NPM_PREFIX (npm install --prefix).
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const prefix = process.env.BLOOM_NPM_PREFIX ?? '/var/cache/bloomfilter/npm';
const require = createRequire(path.join(prefix, 'node_modules') + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

// name, DuckDB type, expression of i, PostgreSQL type
const COLUMNS = [
  ['a', 'INTEGER', 'i * 7919 - 5000000', 'integer'],
  ['b', 'BIGINT', 'i * 1000000007', 'bigint'],
  ['f', 'FLOAT', 'i / 8.0', 'real'],
  ['d', 'DOUBLE', 'i / 7.0', 'double precision'],
  ['t', 'VARCHAR', "'k' || i || 'ü'", 'text'],
  ['u', 'UUID', 'md5(i::VARCHAR)', 'uuid'],
  ['bl', 'BLOB', "('x' || i)", 'bytea'],
  ['dt', 'DATE', "DATE '2000-01-01' + i::INTEGER", 'date'],
  ['ts', 'TIMESTAMP', "TIMESTAMP '2020-01-01' + to_microseconds(i * 1000001)", 'timestamp'],
];
const TYPE = Object.fromEntries(COLUMNS.map(([n, t]) => [n, t]));

// The column's value as text PostgreSQL reads (bytea as hex).
const asText = (col, expr) => (TYPE[col] === 'BLOB' ? `hex(${expr})` : `CAST(${expr} AS VARCHAR)`);

// A constant of the column's type from that text.
function literal(col, text) {
  if (TYPE[col] === 'BLOB') return `from_hex('${text}')`;
  return `CAST('${text.replaceAll("'", "''")}' AS ${TYPE[col]})`;
}

async function connect() {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run('SET threads = 1');
  return c;
}

const tsv = (rows) => rows.map((r) => r.join('\t') + '\n').join('');
const quoted = (f) => `'${f.replaceAll("'", "''")}'`;

async function probe(c, file, col, values) {
  const out = [];
  for (const v of values) {
    const r = await c.runAndReadAll(
      `SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(${quoted(file)}, '${col}', ${literal(col, v)}) ORDER BY 1`);
    for (const [rg, excludes] of r.getRows()) out.push([col, v, rg, excludes ? 't' : 'f']);
  }
  return out;
}

async function write(dir) {
  const c = await connect();
  const file = path.join(dir, 'data.parquet');
  const select = COLUMNS.map(([n, t, e]) => `CAST(${e} AS ${t}) AS ${n}`).join(', ');
  await c.run(`CREATE TABLE gen AS SELECT i, ${select} FROM range(3000) r(i)`);
  await c.run(`COPY (SELECT ${COLUMNS.map(([n]) => n).join(', ')} FROM gen, range(10) k(j)
                     WHERE i < 2000 ORDER BY i, j)
               TO ${quoted(file)} (FORMAT parquet, ROW_GROUP_SIZE 10000,
                   DICTIONARY_SIZE_LIMIT 100000, BLOOM_FILTER_FALSE_POSITIVE_RATIO 0.01)`);
  // Which row group each row is in, from the row groups' sizes.
  const groups = (await c.runAndReadAll(
    `SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(${quoted(file)}) ORDER BY 1`)).getRows();
  let start = 0n;
  const bounds = groups.map(([id, n]) => { const b = `WHEN file_row_number < ${start + BigInt(n)} THEN ${id}`; start += BigInt(n); return b; });
  const rgOf = `CASE ${bounds.join(' ')} END`;
  const values = [];
  for (const [col] of COLUMNS) {
    const r = await c.runAndReadAll(
      `SELECT DISTINCT ${rgOf} AS rg, ${asText(col, col)} FROM read_parquet(${quoted(file)}, file_row_number = true) ORDER BY 1, 2`);
    for (const row of r.getRows()) values.push([row[0], col, row[1]]);
  }
  writeFileSync(path.join(dir, 'values.tsv'), tsv(values));
  const probes = [];
  for (const [col] of COLUMNS) {
    const r = await c.runAndReadAll(`SELECT ${asText(col, col)} FROM gen ORDER BY i`);
    probes.push(...(await probe(c, file, col, r.getRows().map((x) => x[0]))));
  }
  writeFileSync(path.join(dir, 'probes.tsv'), tsv(probes));
  writeFileSync(path.join(dir, 'columns.tsv'), tsv(COLUMNS.map(([n, t, , p]) => [n, t, p])));
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'write' && args.length === 1) {
  await write(args[0]);
} else if (mode === 'probe' && args.length === 3) {
  const { readFileSync } = await import('node:fs');
  const values = readFileSync(args[2], 'utf8').split('\n').filter((l) => l !== '');
  process.stdout.write(tsv((await probe(await connect(), args[0], args[1], values)).map((r) => r.slice(1))));
} else if (mode === 'count' && args.length === 3) {
  const c = await connect();
  const r = await c.runAndReadAll(
    `SELECT count(*) FROM read_parquet(${quoted(args[0])}) WHERE ${args[1]} = ${literal(args[1], args[2])}`);
  console.log(String(r.getRows()[0][0]));
} else {
  console.error('usage: parquet.mjs write DIR | probe FILE COLUMN VALUES | count FILE COLUMN VALUE');
  process.exit(2);
}
