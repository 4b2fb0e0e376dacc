import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { fsCause } from './fs-cause.ts';
import { acquireRunLock } from './run-lock.ts';
import { appendEvent, createRunDir, MetricsWriter, readRunConfig, readRunMetrics, runStamp, trimRunMetrics } from './run-dir.ts';
import { RunIndex } from './run-index.ts';

const listRuns = (runs: string) => new RunIndex().list(runs);

const config = parseRunConfig({ name: 'cp', env: { kind: 'cartpole' } });

test('run directories are named <yyyymmdd-hhmmss>-<name> and never collide', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const when = new Date(2026, 10, 29, 8, 5, 9);
  assert.equal(runStamp(when), '20261129-080509');
  const a = createRunDir(runs, config, when);
  const b = createRunDir(runs, config, when);
  assert.equal(basename(a), '20261129-080509-cp');
  assert.equal(basename(b), '20261129-080509-cp-2');
  assert.deepEqual(readRunConfig(a), config);
});

test('metrics are appended on flush, non-finite values survive, and a torn last line is ignored', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const dir = createRunDir(runs, config);
  const w = new MetricsWriter(join(dir, 'metrics.jsonl'));
  w.add({ type: 'scalars', step: 10, wall_s: 1, values: { 'losses/td_loss': 0.5 } });
  w.add({ type: 'episode', step: 40, value: 22 });
  assert.equal((await readRunMetrics(dir)).length, 0, 'nothing is written before flush');
  w.flush();
  w.add({ type: 'epoch', epoch: 1, step: 100, env_steps: 400, epoch_time_s: 2, steps_per_s: 50, eval_mean_return: Number.NaN, eval_episodes: 5, eval_metrics: {} });
  w.flush();
  appendFileSync(join(dir, 'metrics.jsonl'), '{"type":"scal');
  const recs = (await readRunMetrics(dir));
  assert.equal(recs.length, 3);
  assert.equal(recs[2]!.type === 'epoch' && recs[2]!.eval_mean_return, 'NaN' as unknown as number);
  appendEvent(dir, { time: 't', kind: 'fallback', message: 'replay on CPU' });
  assert.match(readFileSync(join(dir, 'events.log'), 'utf8'), /"kind":"fallback","message":"replay on CPU"/);
  const listed = (await listRuns(runs));
  assert.equal(listed.length, 1);
  assert.equal(listed[0]!.epochs, 1);
  assert.equal(listed[0]!.lastStep, 100);
});

test('trimRunMetrics drops the records past a checkpoint (episodes by env step) and a torn last line', async () => {
  const dir = createRunDir(mkdtempSync(join(tmpdir(), 'runs-')), config);
  const w = new MetricsWriter(join(dir, 'metrics.jsonl'));
  for (const step of [10, 50, 60]) w.add({ type: 'scalars', step, wall_s: step, values: {} });
  w.add({ type: 'episode', step: 190, value: 1 }); // env step 190 <= 200: kept
  w.add({ type: 'episode', step: 230, value: 2 });
  w.add({ type: 'epoch', epoch: 1, step: 50, env_steps: 200, epoch_time_s: 1, steps_per_s: 50, eval_mean_return: 3, eval_episodes: 1, eval_metrics: {} });
  w.add({ type: 'epoch', epoch: 2, step: 100, env_steps: 400, epoch_time_s: 1, steps_per_s: 50, eval_mean_return: 4, eval_episodes: 1, eval_metrics: {} });
  w.flush();
  appendFileSync(join(dir, 'metrics.jsonl'), '{"type":"sca');
  assert.equal(trimRunMetrics(dir, 50, 200), 4);
  assert.deepEqual((await readRunMetrics(dir)).map((r) => `${r.type}@${r.step}`), ['scalars@10', 'scalars@50', 'episode@190', 'epoch@50']);
  assert.equal(trimRunMetrics(dir, 50, 200), 0, 'nothing more to drop');
});

test('file-system errors say the cause in words; a config.json that is not JSON is named', () => {
  const err = (code: string) => Object.assign(new Error(`${code}: x, mkdir '/r'`), { code });
  assert.equal(fsCause(err('EACCES')), "permission denied (the folder is not writable by this user) [EACCES: x, mkdir '/r']");
  assert.match(fsCause(err('EROFS')), /^read-only file system \[EROFS/);
  assert.match(fsCause(err('ENOSPC')), /^no space left on device/);
  assert.equal(fsCause(new Error('plain')), 'plain');
  const dir = createRunDir(mkdtempSync(join(tmpdir(), 'runs-')), config);
  writeFileSync(join(dir, 'config.json'), '{"name":');
  assert.throws(() => readRunConfig(dir), { name: 'InputError', message: new RegExp(`^${join(dir, 'config.json')} is not valid JSON`) }, 'a usage error of the CLIs (exit 2)');
});

test('listRuns names the --seeds group of runs listed in a seeds summary file, and skips a malformed one', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const when = new Date(2026, 10, 29, 8, 5, 9);
  const a = createRunDir(runs, { ...config, name: 'cp-seed1' }, when);
  const b = createRunDir(runs, { ...config, name: 'cp-seed2' }, when);
  const alone = createRunDir(runs, config, when);
  // The summary names the runs by their paths when written; a moved runs folder still matches by folder name.
  writeFileSync(join(runs, '20261129-080511-cp-seeds.json'), JSON.stringify({ runs: [{ run_dir: `/elsewhere/${basename(a)}` }, { run_dir: b }] }));
  writeFileSync(join(runs, '20261129-080512-bad-seeds.json'), '{ not json');
  writeFileSync(join(runs, '20261129-080513-odd-seeds.json'), JSON.stringify({ runs: [{ run_dir: 7 }, null] }));
  const listed = new Map((await listRuns(runs)).map((r) => [r.runDir, r.seedGroup]));
  assert.deepEqual([listed.get(a), listed.get(b), listed.get(alone)], ['20261129-080511-cp-seeds', '20261129-080511-cp-seeds', undefined]);
  assert.equal(listed.size, 3, 'summary files are not runs');
});

test('listRuns says live for a run whose lock a live process holds, and how it ended once released', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const dir = createRunDir(runs, config);
  const stateOf = async () => (await listRuns(runs)).find((r) => r.runDir === dir)?.state;
  assert.equal(await stateOf(), 'incomplete');
  const lock = acquireRunLock(dir);
  assert.equal(await stateOf(), 'live');
  appendEvent(dir, { time: '2026-12-01T10:00:00.000Z', kind: 'stop', message: 'stopped at step 0' });
  lock.release();
  assert.equal(await stateOf(), 'stopped');
});

test('system records read back as written; a malformed one is skipped like a torn line; a resume trims them by gradient step', async () => {
  const dir = createRunDir(mkdtempSync(join(tmpdir(), 'runs-')), config);
  const w = new MetricsWriter(join(dir, 'metrics.jsonl'));
  const gpu = { available: true, reason: '', utilPercent: 87, memUsedBytes: 2 ** 30, memTotalBytes: 80 * 2 ** 30, temperatureC: 61, powerW: 312.5 };
  const sample = (step: number) => ({ step, env_steps: 4 * step, wall_s: step / 100, stepsPerSec: 100, envStepsPerSec: 400, processCpuPercent: 97.5, hostCpuPercent: 48.25, rssBytes: 3e8, gpu });
  w.add({ type: 'system', ...sample(100) });
  w.add({ type: 'scalars', step: 100, wall_s: 1, values: {} });
  w.add({ type: 'system', ...sample(200) });
  w.flush();
  appendFileSync(join(dir, 'metrics.jsonl'), '{"type":"system","step":"three hundred"}\n{"type":"syst');
  assert.deepEqual((await readRunMetrics(dir)), [{ type: 'system', ...sample(100) }, { type: 'scalars', step: 100, wall_s: 1, values: {} }, { type: 'system', ...sample(200) }]);
  // One compact line per sample, like the other records.
  assert.equal(readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n')[0], JSON.stringify({ type: 'system', ...sample(100) }));
  assert.equal(trimRunMetrics(dir, 150, 600), 3, 'the system record past step 150, the malformed line and the torn one');
  assert.deepEqual((await readRunMetrics(dir)).map((r) => `${r.type}@${r.step}`), ['system@100', 'scalars@100']);
});
