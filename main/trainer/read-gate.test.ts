import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_READS_PER_PORT, ReadGate } from './read-gate.ts';

test('a connection may have MAX_READS_PER_PORT reads in flight; one more is refused at once, and a finished read frees its place', async () => {
  const gate = new ReadGate<string>();
  const release: (() => void)[] = [];
  const reads = Array.from({ length: MAX_READS_PER_PORT }, (_, i) => gate.run('a', () => new Promise<number>((r) => release.push(() => r(i)))));
  await assert.rejects(gate.run('a', async () => 0), /^RangeError: busy: 4 reads for this connection are still being answered/);
  assert.equal(await gate.run('b', async () => 'other connection'), 'other connection');
  release.shift()!();
  assert.equal(await reads[0], 0);
  assert.equal(await gate.run('a', async () => 'again'), 'again');
  await assert.rejects(gate.run('a', async () => Promise.reject(new Error('disk'))), /disk/);
  for (const r of release) r();
  await Promise.all(reads);
  assert.equal(await gate.run('a', async () => 'free'), 'free');
});
