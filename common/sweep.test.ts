import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandGrid, gridValues, planTrials, sampleRandom, trialConfigs, withFields } from './sweep-plan.ts';
import { rankTrials, tableOrder, type SweepView } from './sweep-state.ts';
import { sweepTableRows } from './sweep-table.ts';
import { configField, constraintBreaches, constraintText, parseSweepFile, SweepFileError, type SweepFile } from './sweep.ts';

const BASE = { name: 's', preset: 'trading-6e', method: 'random', trials: 5, metric: 'return' };

/** The problem lines parseSweepFile gives for `file`. */
function problems(file: unknown): string[] {
  try {
    parseSweepFile(file);
  } catch (e) {
    if (e instanceof SweepFileError) return e.problems;
    throw e;
  }
  return [];
}

test('a sweep file naming an unknown field, a section, or a field the sweep sets is refused with the names that exist', () => {
  const p = problems({ ...BASE, params: { 'optim.learning_rate': { min: 1e-5, max: 1e-3 }, optim: { values: [1] }, seed: { values: [1, 2] }, 'optim.lr.x': { values: [1] } } });
  assert.equal(p.length, 4);
  assert.match(p[0]!, /^params\.optim\.learning_rate: unknown field \(misspelled\?\): optim has lr, lr_end, lr_decay_steps/);
  assert.match(p[1]!, /^params\.optim: is a section, not a field: name a field inside it, one of optim\.lr, /);
  assert.match(p[2]!, /^params\.seed: is set by the sweep: the sweep's `seeds` and `first_seed`/);
  assert.equal(p[3], "params.optim.lr.x: optim.lr is a field, not a section: it has no 'x'");
  // A field of one option of a union (env's trading kind, target_update's polyak kind) is a field.
  assert.equal(typeof configField('env.decision_interval'), 'object');
  assert.equal(typeof configField('optim.target_update.tau'), 'object');
  // In the config's own words (common/config-problems.ts), as the CLI and the editor say them.
  assert.deepEqual(problems({ ...BASE, fixed: { 'schedule.epochs': 0, 'optim.batchsize': 64, 'env.bogus': 1 }, params: { 'optim.lr': { min: 1e-5, max: 1e-3 } } }), [
    'fixed.schedule.epochs: must be in [1, 1e6] epochs (got 0): raise it to at least 1',
    'fixed.optim.batchsize: unknown field (misspelled?); did you mean optim.batch_size?',
    'fixed.env.bogus: unknown field (misspelled?): env has kind, num_envs, max_episode_steps, collector, simulate_collector_oom, data, bad_rows, episode_length, lags, n_actions, max_position, cost_bps, reward_scale, validation_fraction, test_fraction, embargo_bars, folds, fold, max_gap_bars, gap_policy, decision_interval, change_penalty_bps, action_space, financing_rate',
  ]);
});

test('bad ranges are refused saying what to fix: min not below max, log with a non-positive bound, a bound outside the field, a range on a non-number', () => {
  assert.deepEqual(problems({ ...BASE, params: { 'optim.lr': { min: 0, max: 1e-3, log: true } } }), [
    'params.optim.lr: log scale needs a positive range: min is 0; give min > 0 (e.g. 0.00001) or drop log',
    'params.optim.lr.min: must be in (0, 1] 1/step (got 0): raise it above 0',
  ]);
  assert.deepEqual(problems({ ...BASE, params: { 'env.cost_bps': { min: 2, max: 1 } } }), ['params.env.cost_bps: min (2) must be below max (1); for a single value put it in fixed']);
  assert.deepEqual(problems({ ...BASE, params: { 'optim.gamma': { min: 0.9, max: 1.5 } } }), ['params.optim.gamma.max: must be in [0, 1] (got 1.5): lower it to at most 1']);
  assert.deepEqual(problems({ ...BASE, params: { 'network.hidden': { values: [[64, 0]] } } }), ['params.network.hidden.values[0]: entry 2: must be in [1, 4096] units (got 0): raise it to at least 1']);
  assert.deepEqual(problems({ ...BASE, params: { 'replay.sampler': { min: 0, max: 1 } } }), ['params.replay.sampler: a range (min, max) needs a number field; this field takes values: give them as a values list']);
  assert.deepEqual(problems({ ...BASE, params: { 'env.n_actions': { values: [3, 4] } } }), ['params.env.n_actions.values[1]: must be odd so that the middle action is the flat position (0); use 3 or 5 (got 4)']);
  assert.deepEqual(problems({ ...BASE, params: { 'optim.lr': { values: [1e-3], min: 1 } } }), ['params.optim.lr: give either values (choices) or min and max (a range), not both']);
  assert.deepEqual(problems({ ...BASE, params: { 'optim.lr': { max: 1 } } }), ['params.optim.lr: a range needs both min and max']);
});

test('the method decides what a file needs, and the trial count is bounded', () => {
  assert.deepEqual(problems({ ...BASE, trials: undefined, params: { 'optim.lr': { min: 1e-5, max: 1e-3 } } }), ['trials: a random search needs the number of trials to draw (1 to 1000)']);
  assert.match(problems({ ...BASE, trials: 1001, params: { 'optim.lr': { min: 1e-5, max: 1e-3 } } })[0]!, /^trials: must be in \[1, 1000\] \(got 1001\): lower it to at most 1000$/);
  assert.deepEqual(problems({ ...BASE, trials: 0, params: { 'optim.lr': { min: 1e-5, max: 1e-3 } } }), ['trials: must be in [1, 1000] (got 0): raise it to at least 1']);
  const grid = { ...BASE, method: 'grid', trials: undefined };
  assert.deepEqual(problems({ ...grid, params: { 'optim.lr': { min: 1e-5, max: 1e-3 } } }), ['params.optim.lr: a grid needs steps for a range: how many values from min to max (at least 2)']);
  assert.deepEqual(problems({ ...grid, trials: 4, params: { 'optim.lr': { values: [1e-3] } } }), ['trials: a grid has one trial per combination of its values; drop trials (or use method random)']);
  assert.deepEqual(problems({ ...grid, params: { 'optim.lr': { min: 1e-5, max: 1e-3, steps: 100 }, 'env.cost_bps': { min: 0, max: 1, steps: 11 } } }), ['params: the grid has 1100 trials (100 x 11), more than 1000: fewer values or steps, or method random']);
  assert.deepEqual(problems({ ...BASE, params: {} }), ['params: give at least one parameter to search, e.g. "optim.lr": { "min": 1e-5, "max": 1e-3, "log": true }']);
  assert.deepEqual(problems({ ...BASE, config: 'x.json', params: { 'optim.lr': { values: [1e-3] } } }), ['preset / config: give exactly one base config: "preset": NAME (resources/presets) or "config": FILE (relative to the sweep file)']);
  assert.match(problems({ ...BASE, metric: 'profit', params: { 'optim.lr': { values: [1e-3] } } })[0]!, /^metric: must be one of return, return_simple, sharpe, .*\(got "profit"\)$/);
  assert.deepEqual(problems({ ...BASE, extra: 1, params: { 'optim.lr': { values: [1e-3] } } }), ['extra: unknown field (misspelled?): the sweep file has name, description, preset, config, method, trials, sample_seed, seeds, first_seed, metric, goal, constraints, fixed, params']);
});

test('a grid tries every combination, the last parameter fastest; a log range is spaced evenly in log space, an integer range in whole numbers', () => {
  const f = parseSweepFile({ ...BASE, method: 'grid', trials: undefined, params: { 'optim.lr': { min: 1e-4, max: 1e-2, log: true, steps: 3 }, 'env.decision_interval': { values: [1, 5] } } });
  assert.deepEqual(expandGrid(f.params), [
    { index: 1, params: { 'optim.lr': 1e-4, 'env.decision_interval': 1 } },
    { index: 2, params: { 'optim.lr': 1e-4, 'env.decision_interval': 5 } },
    { index: 3, params: { 'optim.lr': 1e-3, 'env.decision_interval': 1 } },
    { index: 4, params: { 'optim.lr': 1e-3, 'env.decision_interval': 5 } },
    { index: 5, params: { 'optim.lr': 1e-2, 'env.decision_interval': 1 } },
    { index: 6, params: { 'optim.lr': 1e-2, 'env.decision_interval': 5 } },
  ]);
  assert.deepEqual(gridValues('env.decision_interval', { min: 1, max: 60, log: true, steps: 4 }), [1, 4, 15, 60]);
  assert.deepEqual(gridValues('env.lags', { min: 1, max: 3, log: false, steps: 5 }), [1, 2, 3], 'rounded to whole numbers, repeats dropped');
  assert.deepEqual(gridValues('env.cost_bps', { min: 0, max: 1, log: false, steps: 5 }), [0, 0.25, 0.5, 0.75, 1]);
});

test('a random search is reproducible from its seed: log ranges stay in range and cover their decades, integer fields get whole numbers, choices are drawn from the list', () => {
  const f = parseSweepFile({ ...BASE, trials: 400, sample_seed: 7, params: { 'optim.lr': { min: 1e-5, max: 1e-2, log: true }, 'env.decision_interval': { min: 1, max: 30 }, 'replay.sampler': { values: ['proportional', 'uniform'] } } });
  const a = planTrials(f);
  assert.deepEqual(planTrials(f), a, 'the same seed draws the same trials');
  assert.notDeepEqual(sampleRandom(f.params, 400, 8), a, 'another seed draws others');
  assert.deepEqual(a.map((t) => t.index), Array.from({ length: 400 }, (_, k) => k + 1));
  const lr = a.map((t) => t.params['optim.lr'] as number);
  assert.ok(lr.every((v) => v >= 1e-5 && v <= 1e-2), 'every learning rate in [1e-5, 1e-2]');
  // Log-uniform: each of the three decades holds about a third (uniform would put ~90% in the last).
  for (const [lo, hi] of [[1e-5, 1e-4], [1e-4, 1e-3], [1e-3, 1e-2]] as const) {
    const share = lr.filter((v) => v >= lo && v < hi).length / lr.length;
    assert.ok(share > 0.25 && share < 0.42, `decade [${lo}, ${hi}) holds ${share}`);
  }
  const di = a.map((t) => t.params['env.decision_interval'] as number);
  assert.ok(di.every((v) => Number.isInteger(v) && v >= 1 && v <= 30));
  assert.ok(new Set(di).size > 20, 'integers spread over the range');
  const samplers = a.map((t) => t.params['replay.sampler']);
  assert.ok(samplers.every((s) => s === 'proportional' || s === 'uniform'));
  const uniformShare = samplers.filter((s) => s === 'uniform').length / samplers.length;
  assert.ok(uniformShare > 0.4 && uniformShare < 0.6, `uniform drawn ${uniformShare} of the time`);
});

test("each trial's config is the base with the fixed fields and its values set by path, validated as a whole", () => {
  const base = { name: 'b', env: { kind: 'trading', data: 'x.csv', validation_fraction: 0.2 } } as const;
  assert.deepEqual(withFields(base, { 'optim.lr': 0.01, 'env.cost_bps': 2 }), { name: 'b', env: { kind: 'trading', data: 'x.csv', validation_fraction: 0.2, cost_bps: 2 }, optim: { lr: 0.01 } });
  const f: SweepFile = parseSweepFile({ ...BASE, method: 'grid', trials: undefined, fixed: { 'schedule.epochs': 2 }, params: { 'env.test_fraction': { values: [0.2, 0.8] } } });
  const trials = planTrials(f);
  assert.throws(() => trialConfigs(base, f, trials), (e: unknown) => e instanceof SweepFileError && e.problems.length === 1 && /^trial 2 \(env\.test_fraction=0\.8\): env\.test_fraction: validation_fraction \+ test_fraction \(0\.2 \+ 0\.8\) must be below 1/.test(e.problems[0]!));
  const ok = trialConfigs(base, f, trials.slice(0, 1));
  assert.equal(ok[0]!.name, 's-t001');
  assert.equal(ok[0]!.schedule.epochs, 2);
  assert.equal(ok[0]!.env.kind === 'trading' && ok[0]!.env.test_fraction, 0.2);
});

test('trials rank by the mean of their figure, then by the cautious end of the interval, then by number; trials without a figure are left out', () => {
  const v = (mean: number, lo: number, hi: number) => ({ n: 2, mean, std: 1, mean_ci95: [lo, hi] as [number, number] });
  const trials = [
    { index: 1, validation: v(0.1, -1, 1.2) },
    { index: 2 },
    { index: 3, validation: v(0.3, 0, 0.6) },
    { index: 4, validation: v(0.1, -0.5, 0.7) },
    { index: 5, validation: v(0.1, -0.5, 0.7) },
  ];
  assert.deepEqual(rankTrials(trials, 'max'), [3, 4, 5, 1]);
  assert.deepEqual(rankTrials(trials, 'min'), [4, 5, 1, 3]);
});

test('constraints name a validation figure the runs report and give a bound; a misspelled figure lists the ones that exist', () => {
  const lr = { 'optim.lr': { values: [1e-3] } };
  assert.deepEqual(parseSweepFile({ ...BASE, params: lr, constraints: { turnover: { max: 50 }, return: { min: 0 } } }).constraints, { turnover: { max: 50 }, return: { min: 0 } });
  assert.equal(parseSweepFile({ ...BASE, params: lr }).constraints, undefined, 'a file without constraints parses as before (a resumed sweep finds the same spec)');
  assert.deepEqual(problems({ ...BASE, params: lr, constraints: { turnover_x: { max: 50 }, turnover: {}, costs: { min: 0.02, max: 0.01 } } }), [
    'constraints.turnover_x: unknown validation figure (misspelled?): a trading run reports return, return_simple, sharpe, sharpe_se, max_drawdown, ruined, turnover, costs, financing, trade_fraction, eval_mean_reward_bps; a CartPole run eval_mean_return',
    'constraints.turnover: give max (the trial\'s mean over seeds may not exceed it), min (nor fall below it), or both, e.g. { "max": 50 }',
    'constraints.costs: min (0.02) must not be above max (0.01): no trial could keep it',
  ]);
  assert.deepEqual(problems({ ...BASE, params: lr, constraints: { turnover: { max: '50' } } }), ['constraints.turnover.max: must be a number, not the text "50": drop the quotes']);
  assert.deepEqual(problems({ ...BASE, params: lr, constraints: { turnover: { below: 50 } } }), ['constraints.turnover.below: unknown field (misspelled?)']);
  assert.equal(constraintText('turnover', { max: 50 }), 'turnover <= 50');
  assert.equal(constraintText('return', { min: 0, max: 0.1 }, (v) => `${v * 100}%`), '0% <= return <= 10%');
});

// The validation figures of the 4 trials x 2 seeds of main/testing/tiny-sweep.ts (seeds 3 and 4, CPU, 2026-12-03, with the
// training start bars before 36fa2fc; the figures stand as given, whatever the trainer now makes of the same trials).
const TINY = [
  { index: 1, ret: -0.0819685704288804, turnover: 311.8466621743669 },
  { index: 2, ret: -0.0033100466970650833, turnover: 73.18079891181286 },
  { index: 3, ret: -0.1669813671721312, turnover: 555.1206057819738 },
  { index: 4, ret: 0.03518008178012855, turnover: 149.7861639165626 },
];
const stat = (mean: number) => ({ n: 2, mean, std: 0.05, mean_ci95: [mean - 0.4, mean + 0.4] as [number, number] });

test('a trial whose mean validation figure breaks a constraint is not ranked: with turnover <= 100 the best trial by return (149.8x) gives way to the next that keeps it', () => {
  const constraints = { turnover: { max: 100 } };
  assert.deepEqual(constraintBreaches(constraints, { turnover: 149.7861639165626 }), ['validation turnover 149.8 is above its max 100']);
  assert.deepEqual(constraintBreaches(constraints, { turnover: 100 }), [], 'a mean on the bound keeps it');
  assert.deepEqual(constraintBreaches({ turnover: { max: 100 }, return: { min: 0 } }, { turnover: 311.85, return: -0.082 }), ['validation turnover 311.9 is above its max 100', 'validation return -0.082 is below its min 0']);
  assert.deepEqual(constraintBreaches(constraints, {}), ['the runs report no finite validation turnover']);
  assert.deepEqual(constraintBreaches(constraints, { turnover: Number.NaN }), ['the runs report no finite validation turnover']);

  const trials: SweepView['trials'] = TINY.map((t) => {
    const breaches = constraintBreaches(constraints, { turnover: t.turnover });
    return { index: t.index, params: {}, status: 'finished', group: `g${t.index}`, runs: [], validation: stat(t.ret), constrained: { turnover: stat(t.turnover) }, ...(breaches.length ? { ineligible: breaches.join('; ') } : {}) };
  });
  assert.deepEqual(rankTrials(trials.map((t) => ({ index: t.index, validation: t.validation })), 'max'), [4, 2, 1, 3], 'by return alone, trial 4 is best');
  const ranking = rankTrials(trials, 'max');
  assert.deepEqual(ranking, [2]);
  const view: SweepView = { kind: 'sweep', version: 1, name: 's', state: 'finished', method: 'grid', metric: 'return', goal: 'max', constraints, seeds: [3, 4], param_paths: [], trials, ranking, test: { trial: 2, stats: stat(0.01), constrained: { turnover: stat(60) } }, updated: '' };
  assert.deepEqual(tableOrder(view), [2, 4, 1, 3], 'the eligible trial, then the excluded ones as they would rank');
  const rows = sweepTableRows(view);
  assert.deepEqual(rows.map((r) => [r.rank, r.trial, r.best, r.eligible, r.validation_turnover, r.test_turnover]), [
    [1, 2, true, true, 73.18079891181286, 60],
    [null, 4, false, false, 149.7861639165626, null],
    [null, 1, false, false, 311.8466621743669, null],
    [null, 3, false, false, 555.1206057819738, null],
  ]);
  assert.equal(rows[1]!.not_eligible_because, 'validation turnover 149.8 is above its max 100');
  assert.equal(rows[0]!.not_eligible_because, null);
  // A sweep without constraints keeps its table's columns as before.
  assert.equal('eligible' in sweepTableRows({ ...view, constraints: undefined })[0]!, false);
});
