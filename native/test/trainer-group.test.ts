// Seed groups (native/src/train/trainer_group.h): trainers of one config trained in lockstep,
// each member as its seed alone. On the CPU the members train one after another in the same
// call; on CUDA one launch of the step kernel trains them all (those tests need a GPU and skip
// elsewhere, saying so; bench/cuda-device.sh learner-tests runs them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { train } from '../../main/cli/run-cli.ts';
import { loadPreset } from '../../main/trainer/presets.ts';
import { loadAddon } from '../addon.ts';
import { readScalars } from '../scalars.ts';
import { buildTrainerGroup, createTrainer, type NativeTrainer } from '../trainer.ts';

const addon = loadAddon();
const layout = addon.scalarLayout;
const gpu = addon.backendInfo();
const noGpu = gpu.cudaAvailable ? false : `no usable GPU (${gpu.reason}): seed groups on CUDA are tested on a GPU machine (bench/cuda-device.sh learner-tests)`;

function config(patch: Partial<RunConfigInput> = {}) {
  return parseRunConfig({
    seed: 1,
    env: { kind: 'cartpole', num_envs: 4 },
    network: { hidden: [32, 32] },
    replay: { capacity: 4096 },
    optim: { lr: 1e-3, batch_size: 32, target_update: { kind: 'polyak', tau: 0.01 } },
    exploration: { eps_decay_steps: 1000 },
    schedule: { learning_starts: 200, train_every: 2, q_stats_interval: 10, causal_interval: 50, deterministic: true, actor_sync_interval: 20 },
    ...patch,
  });
}

/** What a trainer's run decided: its whole state (weights, optimizer, RNG, counters) and its scalars. */
function outcome(t: NativeTrainer) {
  const s = readScalars(t.scalars, layout);
  return { state: Buffer.from(t.saveState()), step: s.step, envSteps: s.env_steps, episodes: s.episodes, loss: s.loss, perTotal: s.per_total };
}

/** Trains seeds as a group (two run() calls, as the epoch loop makes them) and each seed alone; returns both outcomes. */
async function groupAndAlone(backend: 'cpu' | 'cuda', seeds: number[], steps: [number, number], patch: Partial<RunConfigInput> = {}) {
  const c = config({ backend, ...patch });
  const group = await buildTrainerGroup({ config: c, backend }, seeds);
  const runs = [await group.run(steps[0]), await group.run(steps[1])];
  const grouped = group.members.map(outcome);
  const collectors = group.members.map((m) => m.info.collector);
  const episodes = runs.map((r) => r.map((m) => m.episodeReturns));
  for (const m of group.members) m.close();
  const alone = [];
  const aloneEpisodes = [];
  for (const seed of seeds) {
    const t = createTrainer({ config: parseRunConfig({ ...c, seed }), backend });
    const r = [await t.run(steps[0]), await t.run(steps[1])];
    alone.push(outcome(t));
    aloneEpisodes.push(r.map((x) => x.episodeReturns));
    t.close();
  }
  return { runs, grouped, alone, episodes, aloneEpisodes, collectors };
}

test('a CPU seed group trains every member bit for bit as its seed alone', async () => {
  const seeds = [3, 4, 9];
  const { runs, grouped, alone, episodes, aloneEpisodes } = await groupAndAlone('cpu', seeds, [150, 100]);
  for (const [k, seed] of seeds.entries()) {
    assert.deepEqual(runs.map((r) => [r[k]!.steps, r[k]!.stopped, r[k]!.error]), [[150, false, ''], [100, false, '']], `seed ${seed}: both runs complete`);
    assert.equal(grouped[k]!.step, 250);
    assert.ok(grouped[k]!.state.equals(alone[k]!.state), `seed ${seed}: the same weights, optimizer state, RNG and counters as alone`);
    assert.deepEqual({ ...grouped[k]!, state: 0 }, { ...alone[k]!, state: 0 }, `seed ${seed}: the same scalars`);
    assert.deepEqual(episodes.map((e) => e[k]), aloneEpisodes[k], `seed ${seed}: the same training episodes`);
  }
  assert.ok(!grouped[0]!.state.equals(grouped[1]!.state), 'different seeds train differently');
});

test('a member that halts leaves the group; the others train on, and a stop ends a group run', async () => {
  const c = config({ backend: 'cpu' });
  const group = await buildTrainerGroup({ config: c, backend: 'cpu' }, [1, 2, 3], { injectNan: { tensor: 'loss', step: 40 }, member: 1 });
  const [a, b, d] = await group.run(120);
  assert.deepEqual([a!.steps, a!.error, d!.steps, d!.error], [120, '', 120, ''], 'the healthy members train the whole run');
  assert.equal(b!.error, 'NaN in loss at step 40');
  assert.equal(b!.steps, 39, 'the poisoned member stops before its NaN step');
  assert.equal(readScalars(group.members[1]!.scalars, layout).step, 39);
  const [a2, b2] = await group.run(30);
  assert.deepEqual([a2!.steps, b2!.steps, b2!.error], [30, 0, ''], 'a halted member is left out of later runs');
  group.retire(2);
  assert.equal((await group.run(5))[2]!.steps, 0, 'a retired member is left out');
  assert.throws(() => group.members[0]!.run(1) as unknown, /member of a seed group/);
  const pending = group.run(100000);
  group.stop();
  const [stopped] = await pending;
  assert.ok(stopped!.stopped && stopped!.steps < 100000, 'stop() ends the group run early');
  for (const m of group.members) m.close();
});

test('a seed group refuses bad seeds and a busy member', async () => {
  const c = config({ backend: 'cpu' });
  await assert.rejects(buildTrainerGroup({ config: c, backend: 'cpu' }, []), /1 to 100 seeds/);
  await assert.rejects(buildTrainerGroup({ config: c, backend: 'cpu' }, [1, -2]), /seeds\[1\]/);
  const group = await buildTrainerGroup({ config: c, backend: 'cpu' }, [1, 2]);
  const evaluating = group.members[1]!.evaluate(2);
  assert.throws(() => group.run(10) as unknown, /member 1 of the seed group is busy/);
  await evaluating;
  assert.equal((await group.run(10))[1]!.steps, 10, 'the group runs once the member is free');
  for (const m of group.members) m.close();
});

test('a CUDA seed group in deterministic mode trains every member bit for bit as its seed alone', { skip: noGpu }, async () => {
  const seeds = [5, 6, 7, 8];
  const { grouped, alone } = await groupAndAlone('cuda', seeds, [600, 400], { network: { hidden: [64, 64] }, optim: { lr: 1e-3, batch_size: 64, target_update: { kind: 'hard', interval: 100 } } });
  for (const [k, seed] of seeds.entries()) {
    assert.equal(grouped[k]!.step, 1000);
    assert.ok(grouped[k]!.state.equals(alone[k]!.state), `seed ${seed}: the same weights, optimizer state, RNG and counters as alone`);
    assert.deepEqual({ ...grouped[k]!, state: 0 }, { ...alone[k]!, state: 0 }, `seed ${seed}: the same scalars`);
  }
});

test('a CUDA seed group with its environments on the device (issue 24 item 6) trains every member bit for bit as its seed alone', { skip: noGpu }, async () => {
  // Each member steps its own copies on the device with its own random streams, acting from its
  // own weights there, into its own GPU replay; one launch trains them all.
  const seeds = [5, 6, 7];
  const { grouped, alone, episodes, aloneEpisodes, collectors } = await groupAndAlone('cuda', seeds, [600, 400], {
    env: { kind: 'cartpole', num_envs: 4, collector: 'device' },
    network: { hidden: [64, 64] },
    optim: { lr: 1e-3, batch_size: 64, target_update: { kind: 'hard', interval: 100 } },
  });
  assert.deepEqual(collectors, ['device', 'device', 'device']);
  for (const [k, seed] of seeds.entries()) {
    assert.equal(grouped[k]!.step, 1000);
    assert.ok((grouped[k]!.episodes ?? 0) > 0, `seed ${seed}: episodes ended`);
    assert.ok(grouped[k]!.state.equals(alone[k]!.state), `seed ${seed}: the same weights, optimizer state, RNG and counters as alone`);
    assert.deepEqual({ ...grouped[k]!, state: 0 }, { ...alone[k]!, state: 0 }, `seed ${seed}: the same scalars`);
    assert.deepEqual(episodes.map((r) => r[k]), aloneEpisodes[k], `seed ${seed}: the same episodes`);
  }
  assert.notDeepEqual(aloneEpisodes[0], aloneEpisodes[1], 'two seeds collect different episodes');
});

test('npm run train -- --seeds 3 --backend cuda trains the seeds at once as one GPU seed group, one run directory each', { skip: noGpu }, () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  // The preset without its target return: with one, the seeds train one after another (each may end at its own epoch).
  const preset = loadPreset('cartpole');
  const file = join(runs, 'cartpole-no-target.json');
  writeFileSync(file, JSON.stringify({ ...preset, schedule: { ...preset.schedule, target_return: null } }));
  const r = train(['--config', file, '--backend', 'cuda', '--seeds', '3', '--epochs', '1', '--steps-per-epoch', '1500', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /training seeds 1, 2, 3 at once as one GPU seed group/);
  const summary = r.json as { seeds: number[]; backend: string; runs: { seed: number; state: string; run_dir: string }[] };
  assert.deepEqual(summary.seeds, [1, 2, 3]);
  assert.equal(summary.backend, 'cuda');
  assert.deepEqual(summary.runs.map((x) => x.state), ['finished', 'finished', 'finished']);
  assert.equal(new Set(summary.runs.map((x) => x.run_dir)).size, 3, 'one run directory per seed');
});
