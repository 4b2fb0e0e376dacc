import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { loadAddon } from '../addon.ts';
import { readScalars, nanTensors } from '../scalars.ts';
import { createTrainer, type NativeTrainer } from '../trainer.ts';

const layout = loadAddon().scalarLayout;

/** A small CartPole run config; `patch` overrides whole sections. */
function config(patch: Partial<RunConfigInput> = {}) {
  return parseRunConfig({
    seed: 3,
    env: { kind: 'cartpole', num_envs: 4 },
    network: { hidden: [32, 32] },
    replay: { capacity: 4096 },
    optim: { lr: 1e-3, batch_size: 32, target_update: { kind: 'hard', interval: 50 } },
    exploration: { eps_decay_steps: 2000 },
    schedule: { learning_starts: 200, train_every: 2, q_stats_interval: 10, causal_interval: 25 },
    ...patch,
  });
}

const FIELDS = ['step', 'env_steps', 'episodes', 'loss', 'td_mse', 'grad_norm', 'q_mean', 'q_min', 'q_max', 'q_var',
  'mean_max_q', 'q_stats_step', 'causal_sensitivity', 'causal_step', 'causal_features', 'nan_flags', 'nan_td_rejected',
  'per_total', 'per_max_priority', 'is_weight_mean', 'beta', 'epsilon', 'episodic_return', 'episode_length'] as const;
type Snapshot = Record<(typeof FIELDS)[number], number> & { causal_per_feature: number[]; c51_greedy_dist: number[] };

/** The trainer's scalar block, every field present. */
function scalars(t: NativeTrainer): Snapshot {
  const s = readScalars(t.scalars, layout);
  for (const f of FIELDS) assert.equal(typeof s[f], 'number', f);
  return s as Snapshot;
}

test('info describes the CartPole trainer and its causal features', () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  assert.deepEqual(t.info, {
    backend: 'cpu', replayBackend: 'cpu', replayFallbackReason: '', collector: 'host', collectorReason: '', stateDim: 4, nActions: 2,
    causalFeatureNames: ['x', 'x_dot', 'theta', 'theta_dot'],
  });
  assert.equal(t.scalars.byteLength, layout.size);
  assert.equal(t.scalars, t.scalars, 'the same live block every time');
});

test('run follows the schedule: learning_starts env steps first, then train_every env steps per gradient step', async () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  const r = await t.run(100);
  assert.equal(r.steps, 100);
  assert.equal(r.stopped, false);
  const s = scalars(t);
  assert.equal(s.step, 100);
  // Gradient step k needs 200 + 2k env steps; copies step 4 at a time: 400 exactly.
  assert.equal(s.env_steps, 400);
  // epsilon decays linearly from 1 to 0.05 over 2000 env steps.
  assert.ok(Math.abs(s.epsilon - (1 - 0.95 * 400 / 2000)) < 1e-12);
  assert.equal(s.q_stats_step, 100);
  assert.ok(s.q_min <= s.q_mean && s.q_mean <= s.q_max && s.q_var >= 0 && s.mean_max_q >= s.q_mean);
  assert.equal(s.causal_step, 100);
  assert.equal(s.causal_features, 4);
  const mean = s.causal_per_feature.reduce((a, b) => a + b, 0) / 4;
  assert.ok(Math.abs(s.causal_sensitivity - mean) < 1e-12 && mean > 0);
  assert.ok(s.per_total > 0 && s.per_max_priority > 0 && s.is_weight_mean > 0 && s.is_weight_mean <= 1);
  // beta anneals from 0.4 over 100000 sample() calls: 99 calls done before the last one.
  assert.ok(Math.abs(s.beta - (0.4 + 0.6 * 99 / 100000)) < 1e-9);
  assert.equal(s.nan_flags, 0);
  assert.equal(s.episodes, r.episodeReturns.length);
  assert.ok(r.episodeReturns.every((x) => x >= 1 && x <= 500));
  // Each episode is stamped with the env step at which it ended: increasing, within the run, and
  // (CartPole pays 1 per step, 4 copies step together) no earlier than its own length allows.
  assert.equal(r.episodeEnvSteps.length, r.episodeReturns.length);
  r.episodeEnvSteps.forEach((end, k) => {
    if (k > 0) assert.ok(end > r.episodeEnvSteps[k - 1]!, `episode ${k} ends after episode ${k - 1}`);
    assert.ok(end <= s.env_steps);
    assert.ok(end >= 4 * (r.episodeReturns[k]! - 1) + 1, `episode ${k} of length ${r.episodeReturns[k]} cannot end at env step ${end}`);
  });
  assert.ok(Number.isFinite(s.loss) && s.grad_norm > 0);
});

test('two trainers with the same seed produce identical scalars and state; another seed differs', async () => {
  const a = createTrainer({ config: config(), backend: 'cpu' });
  const b = createTrainer({ config: config(), backend: 'cpu' });
  const c = createTrainer({ config: config({ seed: 4 }), backend: 'cpu' });
  const [ra, rb] = [await a.run(300), await b.run(300)];
  await c.run(300);
  assert.deepEqual(ra, rb);
  assert.deepEqual(scalars(a), scalars(b));
  assert.deepEqual(a.saveState(), b.saveState());
  assert.notDeepEqual(a.saveState(), c.saveState());
  assert.deepEqual(await a.evaluate(3), await b.evaluate(3));
});

test('saveState/loadState restore weights, optimizer, RNG and counters', async () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  await t.run(50);
  const saved = t.saveState();
  const before = scalars(t);
  await t.run(50);
  assert.notDeepEqual(t.saveState(), saved);
  t.loadState(saved);
  assert.deepEqual(t.saveState(), saved);
  const after = scalars(t);
  for (const k of ['step', 'env_steps', 'episodes', 'epsilon', 'beta'] as const) assert.equal(after[k], before[k], k);
  // A fresh trainer of the same shape continues from the state.
  const u = createTrainer({ config: config({ seed: 99 }), backend: 'cpu' });
  u.loadState(saved);
  assert.deepEqual(u.saveState(), saved);
  assert.equal(scalars(u).step, 50);
});

test('loadState refuses another shape, a truncated or foreign blob, and non-bytes', () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  const other = createTrainer({ config: config({ network: { hidden: [16] } }), backend: 'cpu' });
  assert.throws(() => t.loadState(other.saveState()), { name: 'RangeError', message: 'trainer state network is 4 -> [16] -> 2 (dueling), this trainer\'s is 4 -> [32, 32] -> 2 (dueling)' });
  const blob = t.saveState();
  assert.throws(() => t.loadState(blob.subarray(0, blob.length - 3)), /truncated/);
  assert.throws(() => t.loadState(new Uint8Array(64)), /bad magic number/);
  assert.throws(() => t.loadState([1, 2] as unknown as Uint8Array), { name: 'TypeError', message: 'state must be a Uint8Array' });
});

for (const tensor of ['q_online', 'q_target', 'loss', 'gradients', 'weights'] as const) {
  test(`a NaN in ${tensor} halts the run and names the tensor and step`, async () => {
    const t = createTrainer({ config: config(), backend: 'cpu' }, { injectNan: { tensor, step: 7 } });
    await assert.rejects(t.run(20), { message: `NaN in ${tensor} at step 7` });
    const s = scalars(t);
    assert.deepEqual(nanTensors(s.nan_flags, layout), [tensor]);
    assert.equal(s.step, 6);
    // The trainer stays halted until a good state is loaded.
    await assert.rejects(t.run(1), { message: `NaN in ${tensor} at step 7` });
  });
}

test('loading a good state lifts a NaN halt', async () => {
  const good = createTrainer({ config: config(), backend: 'cpu' });
  await good.run(3);
  const t = createTrainer({ config: config(), backend: 'cpu' }, { injectNan: { tensor: 'loss', step: 5 } });
  await assert.rejects(t.run(10), /NaN in loss at step 5/);
  t.loadState(good.saveState());
  assert.equal(scalars(t).nan_flags, 0);
  // Step 5 comes again and the injection fires again: the halt is real, not remembered.
  await assert.rejects(t.run(10), /NaN in loss at step 5/);
});

test('stop() ends a long run promptly; the trainer can run again', async () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  const running = t.run(1e9);
  setTimeout(() => t.stop(), 100);
  const r = await running;
  assert.equal(r.stopped, true);
  assert.ok(r.steps > 0 && r.steps < 1e9);
  const again = await t.run(5);
  assert.deepEqual([again.steps, again.stopped], [5, false]);
});

test('one operation at a time: run, evaluate and saveState refuse while busy', async () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  const running = t.run(50);
  assert.throws(() => t.evaluate(1), /evaluate: the trainer is busy/);
  assert.throws(() => t.run(1), /run: the trainer is busy/);
  assert.throws(() => t.saveState(), /saveState: the trainer is busy/);
  await running;
  assert.equal((await t.evaluate(2)).episodes, 2);
});

test('evaluate is greedy on its own env: counts the asked episodes and leaves training counters alone', async () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  await t.run(20);
  const before = scalars(t);
  const e = await t.evaluate(7);
  assert.equal(e.episodes, 7);
  assert.equal(e.returns.length, 7);
  assert.ok(Math.abs(e.meanReturn - e.returns.reduce((a, b) => a + b, 0) / 7) < 1e-9);
  assert.deepEqual(e.metrics, {});
  assert.deepEqual(scalars(t), before);
});

test('argument errors name what was expected', async () => {
  const c = config();
  const gpu = loadAddon().backendInfo();
  if (!gpu.cudaAvailable) assert.throws(() => createTrainer({ config: c, backend: 'cuda' }), new RegExp(`backend 'cuda' needs a usable GPU: ${gpu.reason}`));
  assert.throws(() => createTrainer({ config: c, backend: 'gpu' as 'cpu' }), { name: 'RangeError', message: "backend must be one of 'cpu', 'cuda', got 'gpu'" });
  assert.throws(() => createTrainer({ config: { ...c, optim: { ...c.optim, lr: 'fast' as unknown as number } }, backend: 'cpu' }), { name: 'TypeError', message: "config.optim.lr must be a number, got 'fast'" });
  assert.throws(() => createTrainer({ config: { ...c, optim: { ...c.optim, gamma: 1.5 } }, backend: 'cpu' }), { name: 'RangeError', message: /config.optim.gamma must be in \[0, 1\], got 1.5$/ });
  const { exploration: _, ...noExploration } = c;
  assert.throws(() => createTrainer({ config: noExploration as typeof c, backend: 'cpu' }), { name: 'TypeError', message: 'config.exploration is required' });
  assert.throws(() => createTrainer({ config: { ...c, network: { ...c.network, hidden: [] } }, backend: 'cpu' }), /config.network.hidden must have 1 to 8 layers, got 0/);
  const trading = parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } });
  assert.throws(() => createTrainer({ config: trading, backend: 'cpu' }), { name: 'TypeError', message: /market must be an object/ });
  const market = { timestamps: new Float64Array(3), open: new Float64Array(3), high: new Float64Array(3), low: new Float64Array(3), close: new Float64Array(2), volume: new Float64Array(3) };
  assert.throws(() => createTrainer({ config: trading, market, backend: 'cpu' }), { name: 'RangeError', message: 'market.close must be a Float64Array of length 3, got length 2' });
  const t = createTrainer({ config: c, backend: 'cpu' });
  assert.throws(() => t.run(-1), { name: 'RangeError', message: /steps must be in/ });
  assert.throws(() => t.run(1.5), { name: 'RangeError', message: 'steps must be an integer, got 1.5' });
  assert.throws(() => t.evaluate(0), { name: 'RangeError', message: /episodes must be in \[1/ });
  assert.throws(() => createTrainer({ config: c, backend: 'cpu' }, { injectNan: { tensor: 'x' as 'loss', step: 1 } }), /testing.injectNan.tensor must be one of/);
});

test('a resumed trainer refills its replay buffer (learning_starts transitions) before it trains again', async () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  await t.run(300);
  const saved = t.saveState();
  const before = scalars(t);
  const u = createTrainer({ config: config(), backend: 'cpu' });
  u.loadState(saved);
  await u.run(1);
  const after = scalars(u);
  assert.equal(after.step, before.step + 1);
  // 200 transitions (learning_starts) arrive in batches of 4 copies; n-step (n = 1) holds none back.
  assert.ok(after.env_steps >= before.env_steps + 200, `collected ${after.env_steps - before.env_steps} env steps`);
  assert.ok(after.env_steps <= before.env_steps + 200 + 4 + 2, `collected ${after.env_steps - before.env_steps} env steps`);
});

test("replay.device 'cuda' puts the trainer's buffer on the GPU when one is usable, and otherwise on the CPU with the reason", async () => {
  const gpu = loadAddon().backendInfo();
  const t = createTrainer({ config: config({ replay: { capacity: 4096, device: 'cuda' } }), backend: 'cpu' });
  if (gpu.cudaAvailable) {
    assert.equal(t.info.replayBackend, 'cuda');
    assert.equal(t.info.replayFallbackReason, '');
    await t.run(50); // the CPU learner samples from and updates the GPU buffer through host arrays
    assert.equal(scalars(t).step, 50);
    const oom = createTrainer({ config: config({ replay: { capacity: 4096, device: 'cuda', simulate_oom: true } }), backend: 'cpu' });
    assert.equal(oom.info.replayBackend, 'cpu');
    assert.match(oom.info.replayFallbackReason, /out of memory, .* GiB asked, .* GiB free/);
  } else {
    assert.equal(t.info.replayBackend, 'cpu');
    assert.equal(t.info.replayFallbackReason, gpu.cudaCompiled ? gpu.reason : 'built without the CUDA toolkit');
  }
  const auto = createTrainer({ config: config(), backend: 'cpu' });
  assert.equal(auto.info.replayBackend, 'cpu', "'auto' follows the compute backend (the CPU here)");
  assert.equal(auto.info.replayFallbackReason, '');
});

test("env.collector 'device' on the CPU backend steps the environments on the host and says why; 'auto' there expects nothing of the device", () => {
  const asked = createTrainer({ config: config({ env: { kind: 'cartpole', num_envs: 4, collector: 'device' } }), backend: 'cpu' });
  assert.equal(asked.info.collector, 'host');
  assert.equal(asked.info.collectorReason, 'the compute backend is the CPU; the device collector acts with the CUDA learner');
  const auto = createTrainer({ config: config(), backend: 'cpu' });
  assert.equal(auto.info.collector, 'host');
  assert.equal(auto.info.collectorReason, '');
  // At the shape where auto prefers the device on CUDA (256 copies x 256 env steps a training step).
  const wide = createTrainer({ config: config({ env: { kind: 'cartpole', num_envs: 256 }, schedule: { learning_starts: 512, train_every: 256 } }), backend: 'cpu' });
  assert.equal(wide.info.collector, 'host');
  assert.equal(wide.info.collectorReason, '', "auto asks nothing of the device on the CPU backend, so there is nothing to explain");
  assert.throws(() => config({ env: { kind: 'cartpole', num_envs: 4, collector: 'gpu' as 'device' } }), /collector/);
});

test('the cumulative sums in the scalar block add up every step, so any interval has its exact mean', async () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  await t.run(5);
  const first = readScalars(t.scalars, layout);
  let loss = first.loss_sum!, td = first.td_mse_sum!, norm = first.grad_norm_sum!;
  assert.equal(first.sum_steps, 5);
  for (let i = 0; i < 20; i++) {
    await t.run(1);
    const s = readScalars(t.scalars, layout);
    loss += s.loss!;
    td += s.td_mse!;
    norm += s.grad_norm!;
  }
  const s = readScalars(t.scalars, layout);
  assert.equal(s.sum_steps, 25);
  assert.equal(s.loss_sum, loss);
  assert.equal(s.td_mse_sum, td);
  assert.equal(s.grad_norm_sum, norm);
});
