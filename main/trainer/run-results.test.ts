import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunEvent } from '../../common/run.ts';
import type { MetricsRecord } from './run-dir.ts';
import { parseEvents, RunTally } from './run-results.ts';

/** The results of `records` and `events` tallied in order. */
function runResults(records: MetricsRecord[], events: RunEvent[]) {
  const tally = new RunTally();
  for (const r of records) tally.addRecord(r);
  for (const e of events) tally.addEvent(e);
  return tally.results();
}

const ev = (kind: RunEvent['kind'], message: string): RunEvent => ({ time: 't', kind, message });
const epoch = (n: number, sps: number): MetricsRecord => ({ type: 'epoch', epoch: n, step: 500 * n, env_steps: 4000 * n, epoch_time_s: 1, steps_per_s: sps, eval_mean_return: 10 * n, eval_episodes: 1, eval_metrics: {} });

test('key results: the last loss, wall time and epoch rate; the backend it ran on; how it ended', () => {
  const records: MetricsRecord[] = [
    { type: 'scalars', step: 10, wall_s: 1, values: { 'losses/td_loss': 0.5 } },
    epoch(1, 900),
    { type: 'scalars', step: 20, wall_s: 2.5, values: { 'losses/td_loss': 0.25, 'q/mean': 3 } },
    { type: 'scalars', step: 30, wall_s: 3, values: { 'losses/td_loss': 'NaN' } },
    epoch(2, 1100),
  ];
  assert.deepEqual(runResults(records, [ev('start', 'run x on cuda'), ev('fallback', 'compute on CPU: CUDA context lost; continuing from the start'), ev('halt', 'NaN in loss')]), {
    state: 'halted',
    finalLoss: 0.25,
    wallS: 3,
    stepsPerSec: 1100,
    backend: 'cpu',
  });
  assert.equal(runResults(records, [ev('start', 'run x on cpu'), ev('stop', 'stopped at step 30')]).state, 'stopped');
  assert.equal(runResults(records, [ev('start', 'run x on cpu'), ev('finish', 'finished'), ev('resume', 'resumed from ...')]).state, 'incomplete', 'a resumed run that did not end yet');
  assert.deepEqual(runResults([], []), { state: 'incomplete' });
  assert.equal(runResults(records.slice(0, 1), []).stepsPerSec, 10, 'no epoch ended: step 10 over 1 s');
});

test('events.log lines parse one by one; a torn line is skipped', () => {
  const text = `${JSON.stringify(ev('start', 'run x on cpu'))}\n${JSON.stringify(ev('stop', 'stopped'))}\n{"time":"t","ki`;
  assert.deepEqual(parseEvents(text.split('\n')).map((e) => e.kind), ['start', 'stop']);
});

test('a run that ended at its target return is finished, with the epoch, its evaluation and the target; one that ran every epoch has no such field', () => {
  const reached: MetricsRecord = { ...(epoch(3, 1000) as Extract<MetricsRecord, { type: 'epoch' }>), eval_mean_return: 500, target_return: 475 };
  const r = runResults([epoch(1, 900), epoch(2, 950), reached], [ev('start', 'run x on cpu'), ev('finish', 'reached the target return 475 (evaluation 500.0) at epoch 3 of 10; finished 3 epochs, 1500 steps')]);
  assert.equal(r.state, 'finished');
  assert.deepEqual(r.stoppedAtTarget, { epoch: 3, evalReturn: 500, targetReturn: 475 });
  assert.equal('stoppedAtTarget' in runResults([epoch(1, 900), epoch(2, 950)], [ev('finish', 'finished 2 epochs, 1000 steps')]), false);
});
