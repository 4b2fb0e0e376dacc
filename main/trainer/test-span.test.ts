// The test span is read by no selection (issue 25 items 1 and 6): two real CPU runs of a trading
// config, one on bars whose every test-span bar is distorted, keep the same checkpoints with the
// same learner state and report the same validation figures at every epoch; only the test
// evaluation, written once with the last epoch, differs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunConfigInput } from '../../common/config.ts';
import type { MarketArrays } from '../../native/trainer.ts';
import { randomBars, rng } from '../../native/test/trading_reference.ts';
import { readCheckpoint } from './checkpoint.ts';
import { evaluateCheckpoint } from './evaluate-checkpoint.ts';
import { readRunMetrics } from './run-dir.ts';
import { defaultDeps, startRun } from './session.ts';

// 1200 bars, validation 0.2, test 0.2, embargo 5: test [960, 1200), validation [715, 955), training [0, 710).
const TEST_BEGIN = 960;
const config: RunConfigInput = {
  name: 'test-span',
  seed: 7,
  backend: 'cpu',
  env: { kind: 'trading', data: 'bars.csv', num_envs: 2, episode_length: 32, lags: 2, n_actions: 5, validation_fraction: 0.2, test_fraction: 0.2, embargo_bars: 5 },
  network: { hidden: [16] },
  replay: { capacity: 2000 },
  optim: { batch_size: 32 },
  exploration: { eps_decay_steps: 200 },
  schedule: { epochs: 4, steps_per_epoch: 40, learning_starts: 100, eval_episodes: 1, checkpoint_keep: 1, q_stats_interval: 20, causal_interval: 40 },
};

/** The bars as an OHLCV CSV file (every number printed exactly). */
function csv(bars: MarketArrays): string {
  const rows = Array.from(bars.close, (_, t) =>
    [new Date(bars.timestamps[t]! * 1000).toISOString().replace('.000', ''), bars.open[t], bars.high[t], bars.low[t], bars.close[t], bars.volume[t]].join(','));
  return `timestamp,open,high,low,close,volume\n${rows.join('\n')}\n`;
}

/** Trains `config` on `bars` (written to a CSV file); returns the run's epoch records and its kept checkpoints (name -> learner state). */
async function train(bars: MarketArrays) {
  const runsDir = mkdtempSync(join(tmpdir(), 'test-span-'));
  const data = join(runsDir, 'bars.csv');
  writeFileSync(data, csv(bars));
  const h = await startRun({ config: { ...config, env: { ...config.env, data } as RunConfigInput['env'] }, runsDir }, {}, defaultDeps);
  assert.equal((await h.done).state, 'finished');
  const epochs = (await readRunMetrics(h.runDir)).flatMap((r) => (r.type === 'epoch' ? [r] : []));
  const dir = join(h.runDir, 'checkpoints');
  const checkpoints = Object.fromEntries(readdirSync(dir).map((f) => [f, Buffer.from(readCheckpoint(join(dir, f)).state)]));
  return { epochs, checkpoints, runDir: h.runDir };
}

test('distorting every test bar changes no selection, no checkpoint kept and no validation figure; the test figures are reported apart', async () => {
  const bars = randomBars(1200, 13);
  const distorted: MarketArrays = { timestamps: bars.timestamps.slice(), open: bars.open.slice(), high: bars.high.slice(), low: bars.low.slice(), close: bars.close.slice(), volume: bars.volume.slice() };
  const u = rng(99);
  for (let t = TEST_BEGIN; t < bars.close.length; t++) {
    const f = 0.5 + u();
    for (const k of ['open', 'high', 'low', 'close'] as const) distorted[k][t] = bars[k][t]! * f;
    distorted.volume[t] = bars.volume[t]! * 5 + 1;
  }
  const a = await train(bars), b = await train(distorted);
  assert.equal(a.epochs.length, 4);
  for (let e = 0; e < 4; e++) {
    assert.equal(b.epochs[e]!.eval_mean_return, a.epochs[e]!.eval_mean_return, `epoch ${e + 1}: validation return`);
    assert.deepEqual(b.epochs[e]!.eval_metrics, a.epochs[e]!.eval_metrics, `epoch ${e + 1}: every validation figure`);
  }
  assert.deepEqual(Object.keys(b.checkpoints).sort(), Object.keys(a.checkpoints).sort(), 'the same checkpoints kept (the last and the best by validation)');
  for (const name of Object.keys(a.checkpoints)) assert.ok(Buffer.compare(a.checkpoints[name]!, b.checkpoints[name]!) === 0, `${name}: the same learner state`);
  // The test span: evaluated once, on the last epoch's record only, labelled by its own span.
  assert.deepEqual(a.epochs.map((e) => e.test_metrics !== undefined), [false, false, false, true]);
  const ta = a.epochs[3]!.test_metrics!, tb = b.epochs[3]!.test_metrics!;
  assert.deepEqual([ta.span_begin_bar, ta.span_end_bar, a.epochs[3]!.eval_metrics.span_begin_bar, a.epochs[3]!.eval_metrics.span_end_bar], [960, 1200, 715, 955]);
  assert.notEqual(tb.buy_and_hold_return, ta.buy_and_hold_return, 'control: the test evaluation did read the distorted bars');
});

test('a chosen checkpoint is evaluated on demand on either span: the last one repeats the run\'s own figures, best is selection\'s choice', async () => {
  const bars = randomBars(1200, 13);
  const run = await train(bars);
  const last = run.epochs[3]!;
  const test = await evaluateCheckpoint(run.runDir, 'epoch-4', 'test');
  assert.deepEqual([test.checkpoint, test.epoch, test.span], ['epoch-4', 4, 'test']);
  assert.deepEqual(test.metrics, last.test_metrics, 'the final weights on the test span, as the run reported them');
  const validation = await evaluateCheckpoint(run.runDir, 'latest', 'validation');
  assert.deepEqual(validation.metrics, last.eval_metrics);
  const best = await evaluateCheckpoint(run.runDir, 'best', 'validation');
  const bestReturn = Math.max(...run.epochs.map((e) => e.eval_mean_return));
  assert.equal(best.validation_mean_return, bestReturn, 'best is the highest validation return kept');
  assert.equal(best.eval_mean_return, bestReturn, 'and evaluating it again gives that return');
  await assert.rejects(evaluateCheckpoint(run.runDir, 'epoch-9', 'test'), /no checkpoint 'epoch-9' \(valid checkpoints: epoch-4(, epoch-\d)?\); give best, latest or one of those names/);
});
