import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { appendEvent, createRunDir, MetricsWriter } from './run-dir.ts';
import { RunIndex } from './run-index.ts';

const config = parseRunConfig({ name: 'cp', env: { kind: 'cartpole' } });
const epoch = (n: number) => ({ type: 'epoch' as const, epoch: n, step: 100 * n, env_steps: 400 * n, epoch_time_s: 1, steps_per_s: 100, eval_mean_return: 10 * n, eval_episodes: 1, eval_metrics: {} });

test('a listing follows what changed in a run (metrics, events, config), a new run and a removed one', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const a = createRunDir(runs, config, new Date(2026, 0, 1));
  const index = new RunIndex();
  assert.deepEqual((await index.list(runs)).map((r) => [r.name, r.epochs, r.state]), [['20260101-000000-cp', 0, 'incomplete']]);
  const w = new MetricsWriter(join(a, 'metrics.jsonl'));
  w.add(epoch(1));
  w.flush();
  appendEvent(a, { time: 't', kind: 'finish', message: 'finished' });
  const b = createRunDir(runs, { ...config, name: 'second' }, new Date(2026, 0, 2));
  assert.deepEqual((await index.list(runs)).map((r) => [r.name, r.epochs, r.lastEvalReturn, r.state]), [
    ['20260102-000000-second', 0, undefined, 'incomplete'],
    ['20260101-000000-cp', 1, 10, 'finished'],
  ]);
  appendFileSync(join(a, 'metrics.jsonl'), `${JSON.stringify(epoch(2))}\n`);
  writeFileSync(join(b, 'config.json'), JSON.stringify({ ...config, env: { kind: 'trading', data: 'x.csv' } }));
  renameSync(a, join(runs, '.trash-a'));
  assert.deepEqual((await index.list(runs)).map((r) => [r.name, r.env]), [['20260102-000000-second', 'trading']]);
  assert.deepEqual(await index.list(join(runs, 'missing')), []);
});

test('listings asked while one is being made share it; a fresh one (after this process changed a run) does not', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  createRunDir(runs, config);
  const index = new RunIndex();
  const first = index.list(runs);
  assert.equal(index.list(runs), first);
  const fresh = index.list(runs, true);
  assert.notEqual(fresh, first);
  assert.equal(index.list(runs), fresh, 'later askers share the fresh one');
  assert.deepEqual(await first, await fresh);
  assert.notEqual(index.list(runs), fresh, 'a finished listing is not reused: the next one looks at the files again');
});

test("a listed run carries its config with the defaults filled in, and a changed config.json is read again (the hyperparameter table's columns)", async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const dir = createRunDir(runs, parseRunConfig({ name: 'lr', env: { kind: 'cartpole' }, optim: { lr: 0.0005 } }), new Date(2026, 0, 3));
  const index = new RunIndex();
  const [listed] = await index.list(runs);
  assert.equal(listed!.config.optim.lr, 0.0005);
  assert.equal(listed!.config.optim.batch_size, config.optim.batch_size, 'a default the file did not name');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ name: 'lr', env: { kind: 'cartpole' }, optim: { lr: 0.002 } }));
  assert.equal((await index.list(runs))[0]!.config.optim.lr, 0.002);
});
