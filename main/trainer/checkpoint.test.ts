import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { latestCheckpoint, readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import { writeFileAtomic } from './atomic-file.ts';

const meta = (step: number) => ({ step, env_steps: step * 4, epoch: Math.floor(step / 100), wall_s: step / 10 });

test('a checkpoint round-trips its state bytes and counters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
  const state = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
  const path = writeCheckpoint(dir, 'epoch-1', meta(100), state);
  const c = readCheckpoint(path);
  assert.deepEqual(c.meta, meta(100));
  assert.deepEqual(Array.from(c.state), Array.from(state));
  assert.deepEqual(readdirSync(join(dir, 'checkpoints')), ['epoch-1'], 'no temporary file is left behind');
});

test('a corrupted or truncated checkpoint is refused with the reason, and the latest valid one is used', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
  writeCheckpoint(dir, 'epoch-1', meta(100), new Uint8Array([1, 2, 3]));
  const p2 = writeCheckpoint(dir, 'epoch-2', meta(200), new Uint8Array([4, 5, 6]));
  const bytes = readFileSync(p2);
  bytes[bytes.length - 1]! ^= 0xff;
  writeFileSync(p2, bytes);
  assert.throws(() => readCheckpoint(p2), /checksum mismatch/);
  writeFileSync(p2, bytes.subarray(0, bytes.length - 2));
  assert.throws(() => readCheckpoint(p2), /truncated \(1 of 3 bytes\)/);
  const skipped: string[] = [];
  const best = latestCheckpoint(dir, (why) => skipped.push(why));
  assert.equal(best?.meta.step, 100);
  assert.equal(skipped.length, 1);
  assert.match(skipped[0]!, /epoch-2: checkpoint is truncated/);
});

test('latestCheckpoint picks the most steps, not the newest name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
  writeCheckpoint(dir, 'epoch-3', meta(300), new Uint8Array([3]));
  writeCheckpoint(dir, 'stop-step-350', meta(350), new Uint8Array([35]));
  writeCheckpoint(dir, 'epoch-2', meta(200), new Uint8Array([2]));
  assert.deepEqual(Array.from(latestCheckpoint(dir)!.state), [35]);
  assert.equal(latestCheckpoint(mkdtempSync(join(tmpdir(), 'ckpt-'))), undefined);
});

test('a failed atomic write names the file and leaves the old content and no temporary file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-'));
  const target = join(dir, 'busy');
  mkdirSync(join(target, 'child'), { recursive: true }); // rename over a non-empty folder fails
  assert.throws(() => writeFileAtomic(target, 'new'), (e: Error) => e.message.startsWith(`could not write ${target}:`) && /unchanged/.test(e.message));
  assert.deepEqual(readdirSync(dir), ['busy']);
  assert.deepEqual(readdirSync(target), ['child']);
});
