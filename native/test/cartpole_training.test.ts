import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig, type RunConfig } from '../../common/config.ts';
import { loadPreset } from '../../main/trainer/presets.ts';
import { createTrainer } from '../trainer.ts';

/** A CartPole run to train on the CPU: its steps, its greedy evaluation and the return it must reach. */
interface LearningCase {
  name: string;
  config: RunConfig;
  steps: number;
  episodes: number;
  /** The untrained greedy return must stay below it (when given). */
  untrainedBelow?: number;
  /** The trained greedy mean return must reach it. */
  trainedAtLeast: number;
}

/** A preset trained for its whole schedule (epochs x steps_per_epoch) and evaluated over its eval_episodes. */
function preset(name: string, trainedAtLeast: number, what: string): LearningCase {
  const config = parseRunConfig(loadPreset(name));
  const { epochs, steps_per_epoch: perEpoch, eval_episodes: episodes } = config.schedule;
  return { name: `the ${name} preset (${what}) trained on the CPU for its ${epochs * perEpoch} steps reaches a greedy mean return >= ${trainedAtLeast} over ${episodes} episodes`, config, steps: epochs * perEpoch, episodes, trainedAtLeast };
}

const CASES: LearningCase[] = [
  {
    // A uniformly random policy averages about 22 steps per episode (and a constant action about 9);
    // 6000 gradient steps on 24k env steps are enough for the learner to balance far longer.
    name: 'a short CartPole run lifts the greedy return far above a random policy',
    config: parseRunConfig({
      seed: 1,
      env: { kind: 'cartpole', num_envs: 4 },
      network: { hidden: [64, 64] },
      replay: { capacity: 50_000 },
      optim: { lr: 1e-3, batch_size: 64, n_step: 3, target_update: { kind: 'polyak', tau: 0.01 } },
      exploration: { eps_end: 0.02, eps_decay_steps: 16_000 },
      schedule: { learning_starts: 1000, train_every: 4 },
    }),
    steps: 6000, episodes: 20, untrainedBelow: 60, trainedAtLeast: 150,
  },
  // CartPole-v1 counts as solved at a mean return of 475 over 100 episodes (DESIGN section 7).
  preset('cartpole-c51', 475, 'the C51 head'),
  preset('cartpole-iqn', 475, 'the IQN head'),
];

for (const c of CASES) {
  test(c.name, async () => {
    const trainer = createTrainer({ config: c.config, backend: 'cpu' });
    const before = await trainer.evaluate(c.episodes);
    await trainer.run(c.steps);
    const after = await trainer.evaluate(c.episodes);
    if (c.untrainedBelow !== undefined) assert.ok(before.meanReturn < c.untrainedBelow, `untrained greedy return ${before.meanReturn}`);
    assert.ok(after.meanReturn >= c.trainedAtLeast, `greedy return after training ${after.meanReturn} (before: ${before.meanReturn})`);
  });
}
