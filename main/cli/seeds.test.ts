import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupMarker, groupSummaryPath, seedList, seedRunName, seedSummaryLines, summarizeSeeds } from './seeds.ts';
import type { RunSummary, TradingEvalSummary } from './summary.ts';
import { TRADING_UNITS } from '../../common/trading-eval.ts';

const walk = (ret: number, sharpe: number) => ({ return: ret, return_simple: ret, sharpe, sharpe_se: 1, max_drawdown: 0.1, ruined: 0, turnover: 3, costs: 0.001, financing: 0 });
const baselines = { flat: walk(0, 0), buy_and_hold: walk(-0.01, -6), ma_crossover_20_60: walk(-0.02, -14) };

function run(seed: number, ret: number, state: RunSummary['state'] = 'finished'): RunSummary {
  const ev: TradingEvalSummary = {
    ...walk(ret, 10 * ret), trade_fraction: 0.5, bars: 100, bar_return_mean: ret / 100, bar_return_sd: 0.01, bars_per_year: 252,
    span: { name: 'validation', first_bar: null, last_bar: null, bars: 100 }, buy_and_hold_return: -0.01, buy_and_hold_sharpe: -6,
    baselines, units: TRADING_UNITS, gap_policy: 'hold',
  };
  return {
    preset: 'trading-6e', config: null, resumed_from: null, seed, backend: 'cpu', replay: 'cpu', state, steps: 10, env_steps: 40, wall_s: 1,
    steps_per_s: 10, last_epoch_steps_per_s: 10, eval_mean_reward_bps: ret * 1e4, eval_episodes: 1, run_dir: `/runs/r${seed}`, eval: ev,
  };
}

test('seeds run from the base seed up, each run named for its seed within 64 characters', () => {
  assert.deepEqual(seedList(5, 3), [5, 6, 7]);
  assert.throws(() => seedList(1, 0), /--seeds must be an integer in \[1, 100\], got 0/);
  assert.throws(() => seedList(2 ** 31 - 2, 3), /pass the largest seed 2147483647: give a smaller --seed/);
  assert.equal(seedRunName('trading-6e', 12), 'trading-6e-seed12');
  assert.equal(seedRunName('x'.repeat(64), 3).length, 64);
  assert.ok(seedRunName('x'.repeat(64), 3).endsWith('-seed3'));
  assert.equal(groupSummaryPath('/runs', 'trading-6e', 'seeds', new Date(2026, 0, 2, 3, 4, 5)), '/runs/20260102-030405-trading-6e-seeds.json');
  assert.equal(groupSummaryPath('/runs', 'trading-6e', 'folds', new Date(2026, 0, 2, 3, 4, 5)), '/runs/20260102-030405-trading-6e-folds.json');
});

test('the summary over seeds gives the spread of the agent beside the baselines, and leaves halted runs out', () => {
  const s = summarizeSeeds({ preset: 'trading-6e', config: null }, [run(1, 0.01), run(2, 0.03), run(3, 0.02), run(4, 0.5, 'halted')], '/runs/s.json');
  assert.deepEqual(s.seeds, [1, 2, 3, 4]);
  assert.deepEqual(s.seeds_in_statistics, [1, 2, 3]);
  if (!('eval' in s) || !s.eval) throw new Error('a trading summary');
  const r = s.eval.agent.return;
  assert.equal(r.n, 3);
  assert.ok(Math.abs(r.mean - 0.02) < 1e-15 && Math.abs(r.std - 0.01) < 1e-15 && Math.abs(r.iqm - 0.02) < 1e-15);
  assert.ok(Math.abs(s.eval_mean_reward_bps.mean - 200) < 1e-9);
  assert.deepEqual(s.eval.baselines, baselines);
  assert.equal(s.eval.baselines_identical, true);
  assert.equal(s.runs[3]!.state, 'halted');
  const other = run(5, 0.02);
  other.eval = { ...other.eval!, baselines: { ...baselines, flat: walk(0.1, 0) } };
  const differing = summarizeSeeds({ preset: null, config: null }, [run(1, 0.01), other], '/s.json');
  assert.equal('eval' in differing && differing.eval.baselines_identical, false);
  assert.throws(() => summarizeSeeds({ preset: null, config: null }, [run(1, 0, 'halted')], '/s.json'), /none of the 1 seeds finished an evaluation \(states: halted\)/);
});

test("a member's group.json names the group by its summary file, with its own seed and every member's", () => {
  assert.deepEqual(groupMarker('/runs/20260102-030405-cartpole-seeds.json', 4, [3, 4, 5]), { kind: 'seed-group', version: 1, group: '20260102-030405-cartpole-seeds', seed: 4, seeds: [3, 4, 5] });
});

test('the terminal says the mean over seeds with its 95% interval, not only where the summary file is', () => {
  const trading = summarizeSeeds({ preset: 'trading-6e', config: null }, [run(1, 0.01), run(2, 0.03), run(3, 0.02)], '/runs/s.json');
  // mean 2%, std 1%, t(0.975, 2) = 4.303: 2% +- 4.303 x 1% / sqrt(3) = 2% +- 2.48%
  assert.deepEqual(seedSummaryLines(trading), ['validation return over 3 seeds: mean +2.00% (95% CI -0.48% to +4.48%), std 1.00%, min +1.00%, max +3.00%; buy-and-hold -1.00%']);
  const cartpole = (seed: number, ret: number): RunSummary => {
    const { eval: _eval, eval_mean_reward_bps: _bps, ...r } = run(seed, 0);
    return { ...r, preset: 'cartpole', eval_mean_return: ret };
  };
  assert.deepEqual(seedSummaryLines(summarizeSeeds({ preset: 'cartpole', config: null }, [cartpole(1, 500), cartpole(2, 480)], '/s.json')), [
    'eval_mean_return over 2 seeds: mean 490.0 (95% CI 362.9 to 617.1), std 14.1, min 480.0, max 500.0',
  ]);
  assert.deepEqual(seedSummaryLines(summarizeSeeds({ preset: 'cartpole', config: null }, [cartpole(1, 500)], '/s.json')), ['eval_mean_return over 1 seed: mean 500.0'], 'one seed: no spread to give');
});

test("a seed that ended at its target return names that epoch in the summary's row; one that ran every epoch does not", () => {
  const { eval: _eval, eval_mean_reward_bps: _bps, ...base } = run(1, 0);
  const early: RunSummary = { ...base, seed: 1, eval_mean_return: 500, stopped_at_target: { target_return: 475, epoch: 2, epochs: 10, eval_mean_return: 500 } };
  const all: RunSummary = { ...base, seed: 2, eval_mean_return: 455 };
  const s = summarizeSeeds({ preset: 'cartpole', config: null }, [early, all], '/s.json');
  assert.deepEqual(s.runs.map((r) => ['stopped_at_target_epoch' in r ? r.stopped_at_target_epoch : undefined, r.eval_mean_return]), [[2, 500], [undefined, 455]]);
});
