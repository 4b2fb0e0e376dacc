import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunSummarySchema, type RunSummary } from '../../common/protocol.ts';
import { evalReturnText, resumeBlocker, runMeta, runTable, runTitle, shortRunNames, TABLE_COLUMNS, withLiveEpoch } from './run-table.ts';

const run = (name: string, extra: Partial<RunSummary>): RunSummary => ({ runDir: `/runs/${name}`, name, createdMs: 0, env: 'cartpole', epochs: 1, lastStep: 1, ...extra });
const runs = [
  run('a-cartpole', { finalLoss: 0.5, lastEvalReturn: 200, state: 'finished', backend: 'cpu', wallS: 30 }),
  run('b-trading', { env: 'trading', finalLoss: 0.1, state: 'halted', backend: 'cuda', wallS: 4000 }),
  run('c-cartpole', { lastEvalReturn: 480, state: 'stopped', backend: 'cpu' }),
];

test('the run table sorts by any column, runs without the value last, and filters on every word', () => {
  const names = (rs: RunSummary[]) => rs.map((r) => r.name);
  assert.deepEqual(names(runTable(runs, { key: 'finalLoss', dir: 'asc' }, '')), ['b-trading', 'a-cartpole', 'c-cartpole']);
  assert.deepEqual(names(runTable(runs, { key: 'finalLoss', dir: 'desc' }, '')), ['a-cartpole', 'b-trading', 'c-cartpole'], 'no loss: last either way');
  assert.deepEqual(names(runTable(runs, { key: 'lastEvalReturn', dir: 'desc' }, '')), ['c-cartpole', 'a-cartpole', 'b-trading']);
  assert.deepEqual(names(runTable(runs, { key: 'name', dir: 'desc' }, '')), ['c-cartpole', 'b-trading', 'a-cartpole']);
  assert.deepEqual(names(runTable(runs, { key: 'name', dir: 'asc' }, 'CARTPOLE cpu')), ['a-cartpole', 'c-cartpole']);
  assert.deepEqual(names(runTable(runs, { key: 'name', dir: 'asc' }, 'halted')), ['b-trading']);
  const wall = (wallS: number | undefined) => runMeta(run('w', { wallS })).find((m) => m.key === 'wallS')?.text;
  assert.deepEqual([wall(undefined), wall(30), wall(119.6), wall(4000)], ['–', '30 s', '2 min 0 s', '1 h 7 min'], 'the Wall column writes durations as the header ETA does (durationText)');
});

test('a row shows the run\'s name without its folder stamp and three results as columns; state, env, backend, epochs and wall time go to the line under the name', () => {
  assert.deepEqual([runTitle('20261202-080121-e2e-cartpole'), runTitle('my-run'), runTitle('20261202-080121')], ['e2e-cartpole', 'my-run', '20261202-080121']);
  assert.deepEqual(TABLE_COLUMNS.map((c) => c.key), ['name', 'finalLoss', 'lastEvalReturn', 'stepsPerSec']);
  assert.deepEqual(runMeta(runs[0]!), [
    { key: 'env', text: 'cartpole' },
    { key: 'state', text: 'finished' },
    { key: 'epochs', text: '1 epoch' },
    { key: 'wallS', text: '30 s' },
    { key: 'backend', text: 'cpu' },
  ]);
});

test('a run that ended at its target return says so in its state, short, with the whole of it in its title, and the listing keeps it (the schema used to strip it)', () => {
  const listed = RunSummarySchema.parse(run('d-cartpole', { state: 'finished', stoppedAtTarget: { epoch: 2, evalReturn: 500, targetReturn: 475 } }));
  assert.deepEqual(listed.stoppedAtTarget, { epoch: 2, evalReturn: 500, targetReturn: 475 });
  assert.deepEqual(runMeta(listed).find((m) => m.key === 'state'), { key: 'state', text: 'at target 475', title: "finished at its target return: epoch 2's evaluation 500.0 >= 475 (schedule.target_return)" }, 'short enough for the side panel, whole in its title');
  assert.deepEqual(runMeta(runs[2]!).find((m) => m.key === 'state'), { key: 'state', text: 'stopped' }, 'a run without a target reads as before, without a title');
  assert.deepEqual(runTable([...runs, listed], { key: 'name', dir: 'asc' }, 'finished').map((r) => r.name), ['a-cartpole', 'd-cartpole']);
});

test('runs shown together get short names that still tell them apart: the name without its stamp, the time where names repeat, the folder name where times repeat too', () => {
  assert.deepEqual(shortRunNames(['20261202-220539-walk-cartpole', '20261202-220523-cartpole']), ['walk-cartpole', 'cartpole']);
  assert.deepEqual(shortRunNames(['20261202-220539-walk-cartpole', '20261202-220538-walk-cartpole', '20261202-220523-cartpole']), ['walk-cartpole (22:05:39)', 'walk-cartpole (22:05:38)', 'cartpole']);
  assert.deepEqual(shortRunNames(['20261202-220539-e2e', '20261203-220539-e2e', '20261202-220540-e2e']), ['20261202-220539-e2e', '20261203-220539-e2e', 'e2e (22:05:40)'], 'the same time on two days');
  assert.deepEqual(shortRunNames(['20261202-220539-e2e', '20261202-220539-e2e-2']), ['e2e', 'e2e-2'], "the same second's second run has its suffix");
  assert.deepEqual(shortRunNames(['mine', 'mine', 'seed 3']), ['mine', 'mine', 'seed 3'], 'names without a stamp stay as they are');
});

test("the eval return carries its unit where it has one: a trading run's summed rewards in basis points, CartPole's as the episode's reward", () => {
  assert.equal(evalReturnText(run('t', { env: 'trading', lastEvalReturn: 3770.804 })), '3770.8 bp');
  assert.equal(evalReturnText(run('c', { lastEvalReturn: 480 })), '480.0');
  assert.equal(evalReturnText(run('n', { env: 'trading' })), '–', 'no evaluation yet: no unit either');
});

test("the live run's row follows its epochs as they end (the list, read when it started, said 0 epochs all run long)", () => {
  const live = { ...runs[0]!, state: 'live' as const, epochs: 0, lastStep: 0, lastEvalReturn: undefined, stepsPerSec: undefined };
  const epoch = { epoch: 5, step: 5000, env_steps: 20000, epoch_time_s: 1.6, steps_per_s: 629, eval_mean_return: 287.4, eval_episodes: 5, eval_metrics: {} };
  const row = withLiveEpoch(live, epoch);
  assert.deepEqual(runMeta(row).find((m) => m.key === 'epochs'), { key: 'epochs', text: '5 epochs' });
  assert.deepEqual(TABLE_COLUMNS.map((c) => c.text(row)), [live.name, live.finalLoss === undefined ? '–' : live.finalLoss.toPrecision(3), '287.4', '629']);
  assert.equal(withLiveEpoch(live, undefined), live, 'no epoch ended yet');
  assert.equal(withLiveEpoch({ ...live, epochs: 6 }, epoch).epochs, 6, 'a list read later than the epoch is kept');
});

test("Resume is off, with the reason as its title, for a run that finished at its target return (the host refuses it), as it is while a run is live or starting", () => {
  const atTarget = run('d-cartpole', { state: 'finished', stoppedAtTarget: { epoch: 2, evalReturn: 500, targetReturn: 475 } });
  const idle = { busy: false, startPending: false };
  assert.equal(
    resumeBlocker(atTarget, idle),
    "it finished at its target return: epoch 2's evaluation 500.0 >= 475 (schedule.target_return), so it trains no further; to train longer, start a new run with a higher target_return or none",
  );
  assert.match(resumeBlocker(run('e-trading', { env: 'trading', state: 'finished', stoppedAtTarget: { epoch: 1, evalReturn: 12.341, targetReturn: 12.34 } }), idle) ?? '', /epoch 1's evaluation 12\.34 >= 12\.34 /, 'the return with the digits that reach the target');
  assert.equal(resumeBlocker(runs[2]!, idle), undefined, 'a stopped run resumes');
  assert.equal(resumeBlocker(runs[2]!, { busy: true, startPending: false }), 'a run is live: stop it first');
  assert.equal(resumeBlocker(runs[2]!, { busy: false, startPending: true }), 'a run is starting');
  assert.equal(resumeBlocker(atTarget, { busy: true, startPending: false }), 'a run is live: stop it first', 'the live run comes first: it is what the user can change');
});
