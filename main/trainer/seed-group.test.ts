// The seed group's lockstep scheduling (seed-group.ts) over a CPU seed group: the sessions'
// trainers run together, each as its seed alone; a member that leaves or halts does not hold
// the others; members asking other step counts are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../../common/config.ts';
import { buildTrainerGroup, createTrainer } from '../../native/trainer.ts';
import { SeedGroupRunner, seedGroupDeps } from './seed-group.ts';
import { defaultDeps } from './session.ts';

const config = parseRunConfig({
  seed: 1,
  backend: 'cpu',
  env: { kind: 'cartpole', num_envs: 2 },
  network: { hidden: [16, 16] },
  replay: { capacity: 2048 },
  optim: { lr: 1e-3, batch_size: 16 },
  exploration: { eps_decay_steps: 500 },
  schedule: { learning_starts: 64, train_every: 1, q_stats_interval: 10, causal_interval: 50 },
});

test('members run together in lockstep, each as its seed alone; a member that leaves holds nobody', async () => {
  const runner = new SeedGroupRunner(await buildTrainerGroup({ config, backend: 'cpu' }, [3, 4, 5]));
  const members = await Promise.all([0, 1, 2].map((k) => runner.createTrainer(k)({ config, backend: 'cuda' })));
  const first = await Promise.all(members.map((m) => m.run(80)));
  assert.deepEqual(first.map((r) => r.steps), [80, 80, 80]);
  const alone = createTrainer({ config: parseRunConfig({ ...config, seed: 4 }), backend: 'cpu' });
  await alone.run(80);
  assert.ok(Buffer.from(members[1]!.saveState()).equals(Buffer.from(alone.saveState())), 'member 1 is seed 4 alone, bit for bit');
  alone.close();
  // Member 2 leaves (its session ended); the others' next run goes ahead without it.
  members[2]!.close();
  const second = await Promise.all([members[0]!.run(20), members[1]!.run(20)]);
  assert.deepEqual(second.map((r) => r.steps), [20, 20]);
  await assert.rejects(members[2]!.run(1), /left the group/);
  // Members asking different step counts: the fewest steps run, a member asking more is refused.
  const [a, b] = await Promise.allSettled([members[0]!.run(10), members[1]!.run(7)]);
  assert.equal(a.status, 'rejected');
  assert.match(String((a as PromiseRejectedResult).reason), /member 0 asked for 10 steps while the others asked for 7: the members of a seed group train in lockstep/);
  assert.equal((b as PromiseFulfilledResult<{ steps: number }>).value.steps, 7);
  for (const m of members.slice(0, 2)) m.close();
});

test('a member that ends at its own epoch (schedule.target_return) leaves, and the others train on exactly as their seeds alone', async () => {
  const runner = new SeedGroupRunner(await buildTrainerGroup({ config, backend: 'cpu' }, [3, 4]));
  const members = await Promise.all([0, 1].map((k) => runner.createTrainer(k)({ config, backend: 'cuda' })));
  await Promise.all(members.map((m) => m.run(80)));
  // Member 0's session reached its target after this epoch: it closes its trainer, as every ending session does.
  members[0]!.close();
  assert.equal((await members[1]!.run(40)).steps, 40);
  assert.equal((await members[1]!.run(40)).steps, 40);
  const alone = createTrainer({ config: parseRunConfig({ ...config, seed: 4 }), backend: 'cpu' });
  for (const steps of [80, 40, 40]) await alone.run(steps);
  assert.ok(Buffer.from(members[1]!.saveState()).equals(Buffer.from(alone.saveState())), 'member 1 after 160 steps, 80 of them alone in the group, is seed 4 alone, bit for bit');
  alone.close();
  members[1]!.close();
});

test('a member whose run halts is rejected with its reason; the others get their results', async () => {
  const group = await buildTrainerGroup({ config, backend: 'cpu' }, [1, 2], { injectNan: { tensor: 'gradients', step: 30 }, member: 0 });
  const runner = new SeedGroupRunner(group);
  const [m0, m1] = [runner.member(0), runner.member(1)];
  const [r0, r1] = await Promise.allSettled([m0.run(50), m1.run(50)]);
  assert.equal(r0.status, 'rejected');
  assert.match(String((r0 as PromiseRejectedResult).reason), /NaN in gradients at step 30/);
  assert.equal(r1.status, 'fulfilled');
  assert.equal((r1 as PromiseFulfilledResult<{ steps: number }>).value.steps, 50);
  m0.close();
  assert.equal((await m1.run(5)).steps, 5, 'the healthy member trains on alone');
  m1.close();
});

test('a member after a lost GPU gets a CPU trainer of its own; a CUDA trainer is handed out once', async () => {
  const runner = new SeedGroupRunner(await buildTrainerGroup({ config, backend: 'cpu' }, [1, 2]));
  const make = runner.createTrainer(0);
  const member = await make({ config, backend: 'cuda' });
  member.close();
  await assert.rejects(make({ config, backend: 'cuda' }), /left the group: it cannot rejoin/);
  const cpu = await make({ config, backend: 'cpu' });
  assert.equal((await cpu.run(10)).steps, 10);
  cpu.close();
  runner.member(1).close();
});

test('seeds on the CPU backend train one after another, saying why', async () => {
  const r = await seedGroupDeps(config, [1, 2, 3], defaultDeps);
  assert.deepEqual(r, { reason: "a GPU seed group needs the CUDA backend, and these seeds train on the CPU (backend 'cpu')" });
  // backend auto on a machine without a usable GPU: the reason the CPU was chosen
  const noGpu = { ...defaultDeps, addon: () => ({ ...defaultDeps.addon(), backendInfo: () => ({ cudaCompiled: true, cudaAvailable: false, reason: 'no CUDA device' }) }) };
  const auto = await seedGroupDeps(parseRunConfig({ ...config, backend: 'auto' }), [1, 2], noGpu);
  assert.deepEqual(auto, { reason: 'a GPU seed group needs the CUDA backend, and these seeds train on the CPU (no CUDA device)' });
});
