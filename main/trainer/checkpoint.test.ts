import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { expectationFor, latestCheckpoint, networkShape, pruneCheckpoints, readCheckpoint, readCheckpointHeader, writeCheckpoint } from './checkpoint.ts';
import { removeStaleTemps, writeFileAtomic } from './atomic-file.ts';

const meta = (step: number, evalReturn: number | null = null) => ({ step, env_steps: step * 4, epoch: Math.floor(step / 100), wall_s: step / 10, eval_mean_return: evalReturn });
const net = { hidden: [64, 64], dueling: true, state_dim: 4, n_actions: 2 };
const runDir = () => mkdtempSync(join(tmpdir(), 'ckpt-'));
const expect = (dir: string) => ({ run: basename(dir), steps_per_epoch: 100, network: net });

test('a checkpoint round-trips its state bytes and counters, and its header names the run and the network', () => {
  const dir = runDir();
  const state = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
  const path = writeCheckpoint(dir, 'epoch-1', meta(100, 42.5), state, net);
  const c = readCheckpoint(path, expect(dir));
  assert.deepEqual(c.meta, meta(100, 42.5));
  assert.deepEqual(Array.from(c.state), Array.from(state));
  const h = readCheckpointHeader(path);
  assert.equal(h.run, basename(dir));
  assert.deepEqual(h.network, net);
  assert.equal(h.bytes, 1000);
  assert.deepEqual(readdirSync(join(dir, 'checkpoints')), ['epoch-1'], 'no temporary file is left behind');
});

test('networkShape follows the config: hidden sizes, dueling, and state_dim / n_actions of the environment', () => {
  const cp = parseRunConfig({ env: { kind: 'cartpole' }, network: { hidden: [32], dueling: false } });
  assert.deepEqual(networkShape(cp), { hidden: [32], dueling: false, state_dim: 4, n_actions: 2 });
  const tr = parseRunConfig({ env: { kind: 'trading', data: 'x.csv', lags: 3, n_actions: 9 } });
  assert.deepEqual(networkShape(tr), { hidden: [256, 256], dueling: true, state_dim: 23, n_actions: 9 });
  assert.deepEqual(expectationFor('/runs/20261201-000000-cp', cp), { run: '20261201-000000-cp', steps_per_epoch: 10_000, network: networkShape(cp) });
});

test('a corrupted or truncated checkpoint is refused with the reason, and the latest valid one is used', () => {
  const dir = runDir();
  writeCheckpoint(dir, 'epoch-1', meta(100), new Uint8Array([1, 2, 3]), net);
  const p2 = writeCheckpoint(dir, 'epoch-2', meta(200), new Uint8Array([4, 5, 6]), net);
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
  writeFileSync(p2, 'DQNCKPT1\n{"step":2\n');
  assert.throws(() => readCheckpoint(p2), new RegExp(`${p2}: checkpoint header is not valid JSON`));
});

test('a checkpoint whose header does not match the run falls back to the previous good one and says why', () => {
  const dir = runDir();
  writeCheckpoint(dir, 'epoch-1', meta(100), new Uint8Array([1]), net);
  const cases: [string, () => void, RegExp][] = [
    ['network hidden', () => writeCheckpoint(dir, 'epoch-2', meta(200), new Uint8Array([2]), { ...net, hidden: [128, 64] }), /network hidden is \[128,64\], the run's config says \[64,64\]/],
    ['dueling', () => writeCheckpoint(dir, 'epoch-2', meta(200), new Uint8Array([2]), { ...net, dueling: false }), /network dueling is false, the run's config says true/],
    ['n_actions', () => writeCheckpoint(dir, 'epoch-2', meta(200), new Uint8Array([2]), { ...net, n_actions: 45 }), /network n_actions is 45, the run's config says 2/],
    ['epoch vs step', () => writeCheckpoint(dir, 'epoch-2', { ...meta(200), epoch: 5 }, new Uint8Array([2]), net), /step 200 does not fall in epoch 6 at 100 steps per epoch/],
    ['negative step', () => writeCheckpoint(dir, 'epoch-2', { ...meta(200), env_steps: -1 }, new Uint8Array([2]), net), /env_steps -1 is not a non-negative integer/],
  ];
  for (const [what, write, why] of cases) {
    write();
    const skipped: string[] = [];
    const c = latestCheckpoint(dir, (w) => skipped.push(w), expect(dir));
    assert.equal(c?.meta.step, 100, what);
    assert.equal(skipped.length, 1, what);
    assert.match(skipped[0]!, /epoch-2: header does not match the run: /, what);
    assert.match(skipped[0]!, why, what);
  }
  // A file copied in from another run directory.
  const other = runDir();
  const foreign = writeCheckpoint(other, 'epoch-2', meta(200), new Uint8Array([2]), net);
  writeFileSync(join(dir, 'checkpoints', 'epoch-2'), readFileSync(foreign));
  const skipped: string[] = [];
  assert.equal(latestCheckpoint(dir, (w) => skipped.push(w), expect(dir))?.meta.step, 100);
  assert.match(skipped[0]!, new RegExp(`belongs to run '${basename(other)}', not '${basename(dir)}'`));
  assert.equal(latestCheckpoint(dir)?.meta.step, 200, 'without an expectation only the file itself is checked');
  // A checkpoint written before headers named their run: still resumable (its counters are
  // checked; the trainer checks the network shape when it loads the state), unless its counters are off.
  const payload = Buffer.from([7]);
  const legacy = (m: ReturnType<typeof meta>) => ({ ...m, bytes: 1, sha256: createHash('sha256').update(payload).digest('hex') });
  writeFileSync(join(dir, 'checkpoints', 'epoch-2'), Buffer.concat([Buffer.from(`DQNCKPT1\n${JSON.stringify(legacy(meta(200)))}\n`), payload]));
  const why: string[] = [];
  assert.deepEqual(Array.from(latestCheckpoint(dir, (w) => why.push(w), expect(dir))!.state), [7]);
  assert.equal(why.length, 0, why.join("; "));
  writeFileSync(join(dir, 'checkpoints', 'epoch-2'), Buffer.concat([Buffer.from(`DQNCKPT1\n${JSON.stringify(legacy({ ...meta(200), epoch: 7 }))}\n`), payload]));
  assert.equal(latestCheckpoint(dir, (w) => why.push(w), expect(dir))?.meta.step, 100);
  assert.match(why[0]!, /epoch-2: header does not match the run: step 200 does not fall in epoch 8/);
});

test('latestCheckpoint picks the most steps, not the newest name', () => {
  const dir = runDir();
  writeCheckpoint(dir, 'epoch-3', meta(300), new Uint8Array([3]), net);
  writeCheckpoint(dir, 'stop-step-350', meta(350), new Uint8Array([35]), net);
  writeCheckpoint(dir, 'epoch-2', meta(200), new Uint8Array([2]), net);
  assert.deepEqual(Array.from(latestCheckpoint(dir, undefined, expect(dir))!.state), [35]);
  assert.equal(latestCheckpoint(runDir()), undefined);
});

test('retention keeps the last N checkpoints (stop checkpoints count) plus the best by evaluation return', () => {
  const dir = runDir();
  const returns = [10, 80, 30, 20, 25, 15];
  returns.forEach((r, i) => writeCheckpoint(dir, `epoch-${i + 1}`, meta((i + 1) * 100, r), new Uint8Array([i]), net));
  writeCheckpoint(dir, 'stop-step-650', meta(650), new Uint8Array([9]), net);
  writeFileSync(join(dir, 'checkpoints', 'notes.txt'), 'not a checkpoint');
  const removed = pruneCheckpoints(dir, 3);
  assert.deepEqual(removed.sort(), ['epoch-1', 'epoch-3', 'epoch-4']);
  assert.deepEqual(readdirSync(join(dir, 'checkpoints')).sort(), ['epoch-2', 'epoch-5', 'epoch-6', 'notes.txt', 'stop-step-650']);
  assert.deepEqual(pruneCheckpoints(dir, 1).sort(), ['epoch-5', 'epoch-6']);
  assert.deepEqual(readdirSync(join(dir, 'checkpoints')).sort(), ['epoch-2', 'notes.txt', 'stop-step-650'], 'the best (80) stays beside the last one');
});

test('stale temporary files of dead writers are removed; one of a live other process is kept', () => {
  const dir = runDir();
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  writeFileSync(join(dir, `.epoch-3.tmp-${dead}`), 'half a checkpoint');
  writeFileSync(join(dir, `.config.json.tmp-${process.pid}`), '{');
  writeFileSync(join(dir, `.epoch-4.tmp-${process.ppid}`), 'being written');
  writeFileSync(join(dir, 'epoch-2'), 'kept');
  assert.deepEqual(removeStaleTemps(dir).sort(), [`.config.json.tmp-${process.pid}`, `.epoch-3.tmp-${dead}`]);
  assert.deepEqual(readdirSync(dir).sort(), [`.epoch-4.tmp-${process.ppid}`, 'epoch-2']);
  assert.deepEqual(removeStaleTemps(join(dir, 'missing')), []);
});

test('a failed atomic write names the file and leaves the old content and no temporary file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-'));
  const target = join(dir, 'busy');
  mkdirSync(join(target, 'child'), { recursive: true }); // rename over a non-empty folder fails
  assert.throws(() => writeFileAtomic(target, 'new'), (e: Error) => e.message.startsWith(`could not write ${target}:`) && /unchanged/.test(e.message));
  assert.deepEqual(readdirSync(dir), ['busy']);
  assert.deepEqual(readdirSync(target), ['child']);
});
