// Files planted in a run folder (issue 26 item 6): links are never followed, FIFOs and other
// special files never block, and no message quotes a file a link points to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { tempNameFor, writeFileAtomic } from './atomic-file.ts';
import { latestCheckpoint, runId, writeCheckpoint } from './checkpoint.ts';
import { writeEvalCurves } from './eval-curves.ts';
import { appendEvent, createRunDir, MetricsWriter, readRunConfig } from './run-dir.ts';
import { RunIndex } from './run-index.ts';
import { acquireRunLock, LOCK_FILE, runLockHolder } from './run-lock.ts';

const SECRET = 'SECRET-7f3a not for any message';
const config = parseRunConfig({ name: 'cp', env: { kind: 'cartpole' } });

/** A runs folder with one run, and beside it (outside) a file holding SECRET. */
function planted() {
  const root = mkdtempSync(join(tmpdir(), 'dqn-planted-'));
  const outside = join(root, 'outside.txt');
  writeFileSync(outside, SECRET);
  const runs = join(root, 'runs');
  const run = createRunDir(runs, config);
  return { root, outside, runs, run };
}

test('a FIFO planted as live.lock blocks nothing: the run lists, and its lock counts as stale and is taken over', () => {
  const { runs, run } = planted();
  assert.equal(spawnSync('mkfifo', [join(run, LOCK_FILE)]).status, 0, 'mkfifo');
  // In a child: a plain read of a FIFO waits for a writer forever, which would hang this test.
  const script = `
    const { runLockHolder, acquireRunLock } = await import(${JSON.stringify(join(import.meta.dirname, 'run-lock.ts'))});
    const { RunIndex } = await import(${JSON.stringify(join(import.meta.dirname, 'run-index.ts'))});
    const listed = await new RunIndex().list(${JSON.stringify(runs)});
    const holder = runLockHolder(${JSON.stringify(run)});
    acquireRunLock(${JSON.stringify(run)}).release();
    console.log(JSON.stringify({ listed: listed.map((r) => r.state), holder: holder ?? null }));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  assert.equal(r.status, 0, `the child ended (null: still blocked when killed): ${r.stderr}`);
  assert.deepEqual(JSON.parse(r.stdout), { listed: ['incomplete'], holder: null });
});

test("a link at the lock's temporary name is removed, never written through", () => {
  const { outside, run } = planted();
  symlinkSync(outside, tempNameFor(join(run, LOCK_FILE)));
  const lock = acquireRunLock(run);
  assert.equal(readFileSync(outside, 'utf8'), SECRET, 'the file outside the runs folder is untouched');
  assert.match(runLockHolder(run) ?? '', /by this process/);
  lock.release();
});

test("a link at an atomic write's temporary name is removed, never written through", () => {
  const { outside, run } = planted();
  const path = join(run, 'config.json');
  symlinkSync(outside, tempNameFor(path));
  writeFileAtomic(path, '{}\n');
  assert.equal(readFileSync(outside, 'utf8'), SECRET);
  assert.equal(readFileSync(path, 'utf8'), '{}\n');
});

test('a config.json or run-id linked to another file is refused as a link, and no message quotes that file', async () => {
  const { outside, runs, run } = planted();
  const config = join(run, 'config.json');
  writeFileSync(config, 'not json at all');
  assert.throws(() => readRunConfig(run), (e: Error) => e.message === `${config} is not valid JSON`, 'a config that is not JSON: the file is named, its text is not');
  writeFileSync(outside, `${SECRET}`);
  const linked = join(runs, 'linked');
  mkdirSync(linked);
  symlinkSync(outside, join(linked, 'config.json'));
  assert.throws(() => readRunConfig(linked), (e: Error) => /config\.json is a symbolic link/.test(e.message) && !e.message.includes('SECRET'));
  assert.deepEqual((await new RunIndex().list(runs)).map((r) => r.name), [], 'neither folder lists as a run');
  symlinkSync(outside, join(linked, 'run-id'));
  assert.equal(runId(linked), 'linked', 'a linked run-id is not read: the folder names the run');
});

test('events.log and metrics.jsonl linked elsewhere are never appended to', () => {
  const { outside, run } = planted();
  symlinkSync(outside, join(run, 'events.log'));
  assert.throws(() => appendEvent(run, { time: 't', kind: 'start', message: 'm' }), /events\.log: .*is a symbolic link/);
  symlinkSync(outside, join(run, 'metrics.jsonl'));
  const w = new MetricsWriter(join(run, 'metrics.jsonl'));
  w.add({ type: 'episode', step: 1, value: 2 });
  assert.throws(() => w.flush(), /metrics\.jsonl is a symbolic link/);
  assert.equal(readFileSync(outside, 'utf8'), SECRET);
});

test('checkpoints/ or eval/ as a link: nothing is written, read or deleted through it', () => {
  const { root, run } = planted();
  const elsewhere = join(root, 'elsewhere');
  mkdirSync(elsewhere);
  const net = { hidden: [8], dueling: false, state_dim: 4, n_actions: 2 };
  writeCheckpoint(run, 'epoch-1', { step: 100, env_steps: 400, epoch: 1, wall_s: 1 }, new Uint8Array(8), net);
  // Moved out and replaced by a link: a resume must not load it, a write must not land there.
  const ckpts = join(run, 'checkpoints');
  spawnSync('mv', [ckpts, join(elsewhere, 'checkpoints')]);
  symlinkSync(join(elsewhere, 'checkpoints'), ckpts);
  assert.equal(latestCheckpoint(run), undefined);
  assert.throws(() => writeCheckpoint(run, 'epoch-2', { step: 200, env_steps: 800, epoch: 2, wall_s: 2 }, new Uint8Array(8), net), /checkpoints is a link or not a folder/);
  assert.deepEqual(readdirSync(join(elsewhere, 'checkpoints')), ['epoch-1']);
  symlinkSync(elsewhere, join(run, 'eval'));
  assert.throws(() => writeEvalCurves(run, { equity: [1, 1.1], buy_and_hold_equity: [1, 1.05], position: [0, 1] }, 1, 100), /eval is a link or not a folder/);
  assert.deepEqual(readdirSync(elsewhere), ['checkpoints']);
});
