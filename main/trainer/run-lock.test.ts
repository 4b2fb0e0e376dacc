// The run folder's lock: one process trains a run at a time; a dead holder's lock is taken over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireRunLock, LOCK_FILE, runLockHolder } from './run-lock.ts';

const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number; hostname: string; started: string };

test('a lock names this process until released; a second take in the same process is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-lock-'));
  const lock = acquireRunLock(dir, new Date('2026-12-01T10:00:00Z'));
  assert.deepEqual(lockOf(dir), { pid: process.pid, hostname: hostname(), started: '2026-12-01T10:00:00.000Z' });
  assert.throws(() => acquireRunLock(dir), { message: `${dir} is being trained by this process (since 2026-12-01T10:00:00.000Z): stop that run first (if no such run is training, delete ${join(dir, LOCK_FILE)})` });
  assert.match(runLockHolder(dir) ?? '', /is being trained by this process/);
  lock.release();
  lock.release(); // idempotent
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
  assert.equal(runLockHolder(dir), undefined);
  acquireRunLock(dir).release();
  assert.deepEqual(readdirSync(dir), [], 'no temporary file is left behind');
});

test('a live other process holds the lock until it dies; then its stale lock is taken over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-lock-'));
  const script = `import { acquireRunLock } from ${JSON.stringify(join(import.meta.dirname, 'run-lock.ts'))}; acquireRunLock(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the locking child exited early (${code})`)));
  });
  assert.throws(() => acquireRunLock(dir), new RegExp(`is being trained by process ${child.pid} \\(since `));
  assert.match(runLockHolder(dir) ?? '', new RegExp(`process ${child.pid}`));
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL'); // dies holding it, as a killed trainer host does
  await exited;
  assert.equal(runLockHolder(dir), undefined, 'a dead holder does not count');
  const lock = acquireRunLock(dir);
  assert.equal(lockOf(dir).pid, process.pid, 'taken over');
  lock.release();
});

test('a lock written on another host counts as live; a torn lock file counts as stale', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-lock-'));
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 4242, hostname: `${hostname()}-elsewhere`, started: '2026-12-01T09:00:00.000Z' }));
  assert.throws(() => acquireRunLock(dir), new RegExp(`is being trained by process 4242 on host '${hostname()}-elsewhere'`));
  writeFileSync(join(dir, LOCK_FILE), '{"pid": 12');
  assert.equal(runLockHolder(dir), undefined);
  acquireRunLock(dir).release();
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
});

test('a lock naming pid 0, -1, 1, a fraction or a pid past the limit is invalid: stale, taken over, never live forever', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-lock-'));
  for (const pid of [0, -1, 1, 1.5, 2 ** 22 + 1, '4242']) {
    for (const host of [hostname(), `${hostname()}-elsewhere`]) {
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, hostname: host, started: '2026-12-01T09:00:00.000Z' }));
      assert.equal(runLockHolder(dir), undefined, `pid ${pid} on ${host}`);
      const lock = acquireRunLock(dir);
      assert.equal(lockOf(dir).pid, process.pid, `pid ${pid}: taken over`);
      lock.release();
    }
  }
});

test('a run folder that cannot be written gives an error naming it, not a lock', () => {
  const missing = join(mkdtempSync(join(tmpdir(), 'dqn-lock-')), 'no-such-run');
  assert.throws(() => acquireRunLock(missing), new RegExp(`^Error: cannot lock ${missing}: `));
});
