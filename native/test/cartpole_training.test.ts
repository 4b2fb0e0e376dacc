import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../../common/config.ts';
import { createTrainer } from '../trainer.ts';

// The same short run with each main head the CPU learner trains.
for (const main of ['q', 'iqn'] as const) {
  test(`a short CartPole run lifts the greedy return far above a random policy (${main} head)`, async () => {
    // A uniformly random policy averages about 22 steps per episode (and a constant action about 9);
    // 6000 gradient steps on 24k env steps are enough for the learner to balance far longer.
    const config = parseRunConfig({
      seed: 1,
      env: { kind: 'cartpole', num_envs: 4 },
      network: { hidden: [64, 64] },
      heads: { main },
      replay: { capacity: 50_000 },
      optim: { lr: 1e-3, batch_size: 64, n_step: 3, target_update: { kind: 'polyak', tau: 0.01 } },
      exploration: { eps_end: 0.02, eps_decay_steps: 16_000 },
      schedule: { learning_starts: 1000, train_every: 4 },
    });
    const trainer = createTrainer({ config, backend: 'cpu' });
    const before = await trainer.evaluate(20);
    await trainer.run(6000);
    const after = await trainer.evaluate(20);
    assert.ok(before.meanReturn < 60, `untrained greedy return ${before.meanReturn}`);
    assert.ok(after.meanReturn > 150, `greedy return after training ${after.meanReturn} (before: ${before.meanReturn})`);
  });
}
