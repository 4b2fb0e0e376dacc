// Test helper: a tiny trading sweep (4 trials x 2 seeds of a small network on the bundled daily
// SPY bars, a second or so per run on the CPU), written into a folder for `npm run sweep`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../trainer/paths.ts';

/** A trading config whose runs end within about a second each on the CPU backend, with a test span. */
export const TINY_SWEEP_BASE = {
  name: 'tiny',
  backend: 'cpu',
  seed: 3,
  env: { kind: 'trading', data: join(REPO_ROOT, 'resources', 'data', 'spy_1d_1999-2020.csv'), num_envs: 4, episode_length: 32, test_fraction: 0.15 },
  network: { hidden: [16] },
  replay: { capacity: 4096 },
  optim: { batch_size: 32 },
  schedule: { epochs: 2, steps_per_epoch: 200, learning_starts: 64, eval_episodes: 1, q_stats_interval: 50, causal_interval: 100 },
};

/** A grid of 2 learning rates x 2 decision intervals (4 trials), 2 seeds each, ranked by the validation return. */
export const TINY_SWEEP = {
  name: 'tiny',
  config: 'tiny-base.json',
  method: 'grid',
  seeds: 2,
  metric: 'return',
  params: { 'optim.lr': { values: [0.001, 0.0001] }, 'env.decision_interval': { values: [1, 4] } },
};

/** Writes the tiny sweep file and its base config into `dir`; returns the sweep file's path. */
export function writeTinySweep(dir: string, sweep: object = TINY_SWEEP): string {
  writeFileSync(join(dir, 'tiny-base.json'), JSON.stringify(TINY_SWEEP_BASE));
  const file = join(dir, 'tiny-sweep.json');
  writeFileSync(file, JSON.stringify(sweep));
  return file;
}
