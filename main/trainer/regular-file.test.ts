import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHUNK_BYTES, lineChunks } from './regular-file.ts';

async function collect(path: string, from = 0) {
  const lines: string[] = [];
  const ends: number[] = [];
  for await (const c of lineChunks(path, from)) {
    lines.push(...c.lines);
    ends.push(c.end);
  }
  return { lines, ends };
}

test('lineChunks reads every line once across chunk borders, ends at the size it had when called, and gives a torn last line last', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'lines-')), 'f.jsonl');
  const lines = Array.from({ length: 50_000 }, (_, i) => `{"i":${i},"pad":"${'x'.repeat(i % 97)}"}`);
  const text = `${lines.join('\n')}\n`;
  assert.ok(text.length > 2 * CHUNK_BYTES, 'more than two chunks');
  writeFileSync(path, `${text}{"torn":`);
  const chunks = lineChunks(path);
  appendFileSync(path, 'x\n{"later":1}\n'); // after the call: not read
  const got: string[] = [];
  let last = 0;
  for await (const c of chunks) {
    got.push(...c.lines);
    last = c.end;
  }
  assert.deepEqual(got, [...lines, '{"torn":']);
  assert.equal(last, Buffer.byteLength(text), 'the torn line is not counted in end');
  const rest = await collect(path, last);
  assert.deepEqual(rest.lines, ['{"torn":x', '{"later":1}']);
  assert.deepEqual(await collect(join(path, '..', 'missing')), { lines: [], ends: [] });
});
