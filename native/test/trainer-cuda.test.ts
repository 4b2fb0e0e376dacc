// The trainer on the CUDA learner (native/src/cuda/cuda_learner.*), through the same API as the
// CPU trainer: live scalars from the pinned block, no host synchronization per training step,
// NaN halts, checkpoints that load on either backend, and the fallbacks of DESIGN section 5
// (replay out of memory, a failing replay kernel, a lost context). These run on a GPU machine
// (bench/cuda-device.sh learner-tests) and skip elsewhere, saying so. The tensor-by-tensor
// comparison with the CPU learner is native/test/cuda/learner_cuda_tool.cpp (`check`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { train } from '../../main/cli/run-cli.ts';
import { loadOhlcv } from '../../main/trainer/data/ohlcv.ts';
import { loadPreset } from '../../main/trainer/presets.ts';
import { loadAddon } from '../addon.ts';
import { readScalars } from '../scalars.ts';
import { readRunMetrics } from '../../main/trainer/run-dir.ts';
import { buildTrainer, createTrainer, type NativeTrainer } from '../trainer.ts';

const addon = loadAddon();
const gpu = addon.backendInfo();
const skip = gpu.cudaAvailable ? false : `no usable GPU (${gpu.reason}): the CUDA learner's tests run on a GPU machine (bench/cuda-device.sh learner-tests)`;
const layout = addon.scalarLayout;

function config(patch: Partial<RunConfigInput> = {}) {
  return parseRunConfig({
    seed: 5,
    backend: 'cuda',
    env: { kind: 'cartpole', num_envs: 4 },
    network: { hidden: [64, 64] },
    replay: { capacity: 8192 },
    optim: { lr: 1e-3, batch_size: 64, target_update: { kind: 'hard', interval: 100 } },
    exploration: { eps_decay_steps: 2000 },
    schedule: { learning_starts: 256, train_every: 1, q_stats_interval: 10, causal_interval: 100, actor_sync_interval: 20 },
    ...patch,
  });
}

test('a CUDA trainer trains on the GPU and streams its scalars from the pinned block while it runs', { skip }, async () => {
  const t = createTrainer({ config: config(), backend: 'cuda' });
  assert.equal(t.info.backend, 'cuda');
  assert.equal(t.info.replayBackend, 'cuda');
  const running = t.run(3000);
  // The block is read while the worker thread trains: the step count moves under our eyes.
  let seen = 0;
  while (seen === 0) {
    await new Promise((r) => setImmediate(r));
    seen = readScalars(t.scalars, layout).step!;
  }
  const res = await running;
  assert.equal(res.steps, 3000);
  const s = readScalars(t.scalars, layout);
  assert.equal(s.step, 3000);
  assert.equal(s.sum_steps, 3000);
  assert.ok(Number.isFinite(s.loss) && s.loss! >= 0, `loss ${s.loss}`);
  assert.ok(s.loss_sum! > 0 && s.grad_norm_sum! > 0);
  assert.equal(s.q_stats_step, 3000);
  assert.equal(s.causal_step, 3000);
  assert.equal(s.causal_features, 4);
  assert.ok(s.per_total! > 0 && s.beta! > 0.4, `per_total ${s.per_total}, beta ${s.beta}`);
  assert.equal(s.nan_flags, 0);
});

test('deterministic mode: two GPU runs of one seed end bit for bit alike, a third seed differs', { skip }, async () => {
  const schedule = { ...config().schedule, deterministic: true };
  const run = async (seed: number) => {
    const t = createTrainer({ config: config({ seed, schedule }), backend: 'cuda' });
    await t.run(2000);
    const state = t.saveState();
    const lossSum = readScalars(t.scalars, layout).loss_sum;
    t.close();
    return { state, lossSum };
  };
  const a = await run(11), b = await run(11), c = await run(12);
  assert.equal(a.lossSum, b.lossSum, 'the summed losses of the same seed');
  assert.ok(Buffer.from(a.state).equals(Buffer.from(b.state)), 'the same seed: weights, optimizer, RNG and counters bit for bit');
  assert.ok(!Buffer.from(a.state).equals(Buffer.from(c.state)), 'another seed trains differently');
  assert.notEqual(a.lossSum, c.lossSum);
});

test('a CUDA trainer built off the event loop trains; close() detaches its pinned block and gives its device memory back', { skip }, async () => {
  const c = config({ replay: { capacity: 1 << 21 } }); // ~0.2 GiB of replay on the GPU
  const before = addon.backendInfo().freeBytes!;
  const t = await buildTrainer({ config: c, backend: 'cuda' });
  assert.equal(t.info.backend, 'cuda');
  const held = before - addon.backendInfo().freeBytes!;
  assert.ok(held > 100 * 2 ** 20, `the trainer holds ${(held / 2 ** 20).toFixed(0)} MiB of device memory`);
  const block = t.scalars;
  await t.run(300);
  assert.equal(readScalars(block, layout).step, 300);
  t.close();
  assert.equal(block.byteLength, 0, 'JS can no longer read the freed pinned block');
  const back = addon.backendInfo().freeBytes! - (before - held);
  assert.ok(back > 0.9 * held, `close() gave back ${(back / 2 ** 20).toFixed(0)} of ${(held / 2 ** 20).toFixed(0)} MiB`);
  assert.throws(() => t.run(1), /closed/);
  // The device stays usable: the next trainer trains.
  const next = createTrainer({ config: config(), backend: 'cuda' });
  assert.equal((await next.run(100)).steps, 100);
  next.close();
});

test('1,000 training steps with collection on the CPU make no host synchronization but the epoch boundary', { skip }, async () => {
  const t = createTrainer({ config: config(), backend: 'cuda' });
  assert.equal(t.info.collector, 'host');
  assert.equal(t.info.collectorReason, '');
  await t.run(50);  // the first steps run eagerly and capture the step graph
  const before = addon.cudaSyncCount();
  await t.run(1000);
  assert.equal(addon.cudaSyncCount() - before, 1, 'only the finish of run() synchronizes');
});

// The device collector (issue 24): env.collector 'device' on the CUDA backend steps CartPole's
// copies on the GPU, acting from the learner's weights there; the host queues vector steps and
// reads the ended episodes back when run() ends. ('auto' picks the device only where it trains
// faster: from 256 copies and 256 env steps a training step, RESULTS run L44.)
const onDevice = { env: { kind: 'cartpole' as const, num_envs: 4, collector: 'device' as const } };

/**
 * Runs `t` (collecting on the device) for each count of training steps and checks its episodes as
 * the host path reports them: in env-step order inside the run's env steps, the scalar block
 * counting every one (from `episodes` reported before) with the last one's return; `check` sees
 * each return and the block after the run. Returns the host synchronizations of each run().
 */
async function runsOnDevice(t: NativeTrainer, counts: number[], episodes: number, check: (ret: number, now: ReturnType<typeof readScalars>) => void): Promise<number[]> {
  let envSteps = readScalars(t.scalars, layout).env_steps!;
  const syncs: number[] = [];
  for (const steps of counts) {
    const before = addon.cudaSyncCount();
    const r = await t.run(steps);
    syncs.push(addon.cudaSyncCount() - before);
    assert.equal(r.steps, steps);
    const now = readScalars(t.scalars, layout);
    assert.ok(r.episodeReturns.length > 0, `episodes ended in ${steps} steps`);
    assert.equal(r.episodeEnvSteps.length, r.episodeReturns.length);
    for (let i = 0; i < r.episodeEnvSteps.length; i++) {
      const at = r.episodeEnvSteps[i]!;
      assert.ok(at > envSteps && at <= now.env_steps!, `episode ${i} ended at env step ${at}, in (${envSteps}, ${now.env_steps}]`);
      if (i > 0) assert.ok(at > r.episodeEnvSteps[i - 1]!, 'in env-step order');
      check(r.episodeReturns[i]!, now);
    }
    episodes += r.episodeReturns.length;
    assert.equal(now.episodes, episodes, 'the scalar block counts every episode reported');
    assert.equal(now.episodic_return, r.episodeReturns.at(-1));
    envSteps = now.env_steps!;
  }
  return syncs;
}

test("with env.collector 'device' on CUDA the environments step on the GPU: episodes come back in env-step order, and run() waits on the device as often at 1,000 steps as at 100", { skip }, async () => {
  const t = createTrainer({ config: config(onDevice), backend: 'cuda' });
  assert.equal(t.info.collector, 'device');
  assert.equal(t.info.collectorReason, '');
  const first = await t.run(50);  // the replay's count made exact once before the first sample; the step graph captured
  assert.equal(first.steps, 50);
  // learning_starts 256, one env step per gradient step, 4 copies: the vector steps until step 50 was due.
  assert.equal(readScalars(t.scalars, layout).env_steps, Math.ceil((256 + 50) / 4) * 4);
  const syncs = await runsOnDevice(t, [100, 1000], first.episodeReturns.length, (ret, now) => {
    // CartPole pays 1 a step: a return is the episode's length, 1 to 500.
    assert.ok(Number.isInteger(ret) && ret >= 1 && ret <= 500, `return ${ret}`);
    assert.equal(now.episode_length, now.episodic_return);
  });
  assert.equal(syncs[1], syncs[0], `host synchronizations per run(): ${syncs.join(' at 100 steps, ')} at 1,000`);
  // The learner's finish, the episode log's count and entries, the replay's count.
  assert.ok(syncs[0]! <= 4, `${syncs[0]} synchronizations at the epoch boundary`);
  t.close();
});

test("env.collector 'auto' on CUDA steps the environments on the device from 256 copies and 256 env steps a training step, on the host below that", { skip }, () => {
  const where = (num_envs: number, train_every: number) => {
    const t = createTrainer({
      config: config({ env: { kind: 'cartpole', num_envs }, schedule: { learning_starts: 256, train_every, q_stats_interval: 10, causal_interval: 100 } }),
      backend: 'cuda',
    });
    const out = `${t.info.collector}${t.info.collectorReason ? ` (${t.info.collectorReason})` : ''}`;
    t.close();
    return out;
  };
  assert.equal(where(256, 256), 'device');
  assert.equal(where(1024, 512), 'device');
  assert.equal(where(4, 1), 'host', "the tests' small shape");
  assert.equal(where(255, 256), 'host', 'one copy short');
  assert.equal(where(256, 255), 'host', 'one env step a training step short');
  assert.equal(where(4096, 4), 'host', 'many copies, but a vector step every 1,024 training steps: the host keeps up');
});

test('environments that cannot step on the GPU step on the host and say why: rank-based sampling, a CPU replay, a collector that does not fit, a replay that moves to the CPU', { skip }, () => {
  const reason = (patch: Partial<RunConfigInput>) => {
    const t = createTrainer({ config: config({ ...onDevice, ...patch }), backend: 'cuda' });
    const out = [t.info.collector, t.info.collectorReason];
    t.close();
    return out;
  };
  assert.deepEqual(reason({ replay: { capacity: 8192, sampler: 'rank' } }), ['host', 'rank-based sampling sorts on the host\'s count of transitions, which device collection updates only at the epoch boundary; use the proportional or uniform sampler']);
  assert.deepEqual(reason({ replay: { capacity: 8192, device: 'cpu' } }), ['host', 'the replay buffer is on the CPU (replay.device), and the device collector writes into the GPU replay']);
  assert.deepEqual(reason({ replay: { capacity: 8192, simulate_oom: true } }), ['host', 'the replay buffer is on the CPU (replay.device), and the device collector writes into the GPU replay']);
  assert.deepEqual(reason({ env: { kind: 'cartpole', num_envs: 4, collector: 'host' } }), ['host', '']);
  const [where, why] = reason({ env: { kind: 'cartpole', num_envs: 4, collector: 'device', simulate_collector_oom: true } });
  assert.equal(where, 'host');
  assert.match(why!, /^the device collector does not fit: out of memory: the GPU collector of 4 environments needs [0-9.]+ GiB, [0-9.]+ GiB free$/);
});

// Trading on the device collector (issue 24): asked for with env.collector 'device', never
// picked by 'auto' (not yet measured); its evaluation walks step on the GPU too.
const TRADING_NOTE = 'training episodes and evaluation walks step on the GPU';
const spy = () => loadOhlcv('resources/data/spy_1d_1999-2020.csv').bars;
const tradingOnDevice = () =>
  config({
    env: { kind: 'trading', data: 'spy.csv', num_envs: 4, episode_length: 40, collector: 'device' },
    schedule: { learning_starts: 200, train_every: 1, q_stats_interval: 10, causal_interval: 100 },
  });

test("a trading run with env.collector 'device' steps its training episodes on the GPU and reports them as the host does: in env-step order, counted, lengths up to episode_length", { skip }, async () => {
  const t = createTrainer({ config: tradingOnDevice(), market: spy(), backend: 'cuda' });
  assert.equal(t.info.collector, 'device');
  assert.equal(t.info.collectorReason, TRADING_NOTE);
  assert.equal(t.info.stateDim, 51);
  assert.equal(t.info.nActions, 45);
  // The first run crosses learning_starts (the replay's count made exact once before the first
  // sample) and captures the step graph: its synchronizations are not an epoch's.
  const first = await t.run(50);
  assert.equal(first.steps, 50);
  // 4 copies, episodes of at most 40 steps: every copy ends some in 300 training steps.
  const syncs = await runsOnDevice(t, [300, 600], first.episodeReturns.length, (ret, now) => {
    assert.ok(Number.isFinite(ret), `return ${ret}`);
    assert.ok(now.episode_length! >= 1 && now.episode_length! <= 40, `episode length ${now.episode_length}`);
  });
  assert.equal(syncs[1], syncs[0], `host synchronizations per run(): ${syncs.join(' at 300 steps, ')} at 600`);
  assert.ok(syncs[0]! <= 4, `${syncs[0]} synchronizations at the epoch boundary`);
  // The evaluation walk steps on the device, from the weights the device trained.
  const ev = await t.evaluate(1);
  assert.equal(ev.episodes, 1);
  assert.ok(Number.isFinite(ev.metrics.return!) && ev.metrics.bars! > 0, `validation walk: ${JSON.stringify(ev.metrics)}`);
  t.close();
});

/** A trading run on the device collector with a test span, deciding every 5 bars (a walk of ~150 steps on SPY's validation span). */
const tradingEval = (collector: 'device' | 'host') =>
  config({
    env: { kind: 'trading', data: 'spy.csv', num_envs: 4, episode_length: 40, collector, test_fraction: 0.15, decision_interval: 5 },
    schedule: { learning_starts: 200, train_every: 1, q_stats_interval: 10, causal_interval: 100 },
  });

test("a trading run on the device collector walks its validation and test spans on the GPU: one synchronization a walk, the figures of the host's walk of the same weights", { skip }, async () => {
  const t = createTrainer({ config: tradingEval('device'), market: spy(), backend: 'cuda' });
  assert.equal(t.info.collector, 'device');
  assert.equal(t.info.collectorReason, TRADING_NOTE);
  await t.run(300);
  const walks = [];
  for (const span of ['validation', 'test'] as const) {
    const before = addon.cudaSyncCount();
    const ev = await t.evaluate(1, span);
    const syncs = addon.cudaSyncCount() - before;
    assert.ok(syncs <= 1, `${syncs} synchronizations in the ${span} walk (the record is read once at its end)`);
    assert.equal(ev.episodes, 1);
    assert.ok(Number.isFinite(ev.meanReturn) && Number.isFinite(ev.metrics.return!) && ev.metrics.bars! > 0, `${span} walk: ${JSON.stringify(ev.metrics)}`);
    assert.equal(ev.series?.equity?.length, ev.metrics.bars! + 1);
    walks.push(ev);
  }
  // Three episodes of one walk: the same walk, its figures averaged as the host's env does.
  const three = await t.evaluate(3);
  assert.deepEqual(three.returns, [walks[0]!.meanReturn, walks[0]!.meanReturn, walks[0]!.meanReturn]);
  for (const [k, v] of Object.entries(walks[0]!.metrics)) assert.ok(Math.abs(three.metrics[k]! - v) <= 1e-15 * Math.max(1, Math.abs(v)), `${k}: ${three.metrics[k]} after 3 walks, ${v} after 1`);
  // The host's walk of the same weights (a host-collector trainer that loaded them acts from a
  // host copy): the same figures unless an action differs at a near-tie of the Q values (~1e-6
  // apart on the two sides; unlikely over ~150 steps).
  const h = createTrainer({ config: tradingEval('host'), market: spy(), backend: 'cuda' });
  assert.equal(h.info.collector, 'host');
  h.loadState(t.saveState());
  for (const [i, span] of (['validation', 'test'] as const).entries()) {
    const ev = await h.evaluate(1, span);
    assert.deepEqual(Object.keys(ev.metrics).sort(), Object.keys(walks[i]!.metrics).sort());
    for (const [k, v] of Object.entries(ev.metrics))
      assert.ok(Math.abs(walks[i]!.metrics[k]! - v) <= 1e-12 * Math.max(1, Math.abs(v)), `${span} ${k}: device ${walks[i]!.metrics[k]}, host ${v} (a near-tie action?)`);
    assert.ok(Math.abs(walks[i]!.meanReturn - ev.meanReturn) <= 1e-9 * Math.max(1, Math.abs(ev.meanReturn)), `${span} return: device ${walks[i]!.meanReturn}, host ${ev.meanReturn}`);
  }
  h.close();
  t.close();
});

test('trading evaluation walks that do not fit on the GPU, or whose GPU walk fails, walk on the host and say why', { skip }, async () => {
  process.env.DQN_SIMULATE_EVAL_WALK_OOM = '1';
  let t: NativeTrainer;
  try {
    t = createTrainer({ config: tradingEval('device'), market: spy(), backend: 'cuda' });
  } finally {
    delete process.env.DQN_SIMULATE_EVAL_WALK_OOM;
  }
  assert.equal(t.info.collector, 'device');
  assert.match(t.info.collectorReason, /^training episodes step on the GPU; evaluation walks step on the host: the GPU evaluation walks do not fit: out of memory: the GPU evaluation walk of \d+ steps needs [0-9.]+ GiB, [0-9.]+ GiB free$/);
  await t.run(50);
  const host = await t.evaluate(1);
  assert.ok(Number.isFinite(host.metrics.return!), JSON.stringify(host.metrics));
  t.close();
  process.env.DQN_SIMULATE_EVAL_WALK_ERROR = '1';
  try {
    t = createTrainer({ config: tradingEval('device'), market: spy(), backend: 'cuda' });
  } finally {
    delete process.env.DQN_SIMULATE_EVAL_WALK_ERROR;
  }
  assert.equal(t.info.collectorReason, TRADING_NOTE);
  await t.run(50);
  const failed = await t.evaluate(1);
  assert.ok(Number.isFinite(failed.metrics.return!), JSON.stringify(failed.metrics));
  assert.equal(t.info.collector, 'device', 'training episodes still step on the GPU');
  assert.equal(
    t.info.collectorReason,
    'training episodes step on the GPU; evaluation walks step on the host: a GPU walk failed (stepping the GPU evaluation walk: simulated launch failure), so they went on on the host',
  );
  t.close();
});

test("env.collector 'auto' keeps trading on the host, even at the shape where it picks the device for CartPole", { skip }, () => {
  const t = createTrainer({
    config: config({
      env: { kind: 'trading', data: 'spy.csv', num_envs: 256, episode_length: 40 },
      schedule: { learning_starts: 512, train_every: 256, q_stats_interval: 10, causal_interval: 100 },
    }),
    market: spy(),
    backend: 'cuda',
  });
  assert.equal(t.info.collector, 'host');
  assert.equal(t.info.collectorReason, '');
  t.close();
});

test('the trading-6e preset with the device collector trains and evaluates from the CLI, which says where the environments and the evaluation step', { skip }, async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const preset = loadPreset('trading-6e');
  const file = join(runs, 'trading-6e-device.json');
  writeFileSync(file, JSON.stringify({ ...preset, env: { ...preset.env, collector: 'device' } }));
  const r = train(['--config', file, '--backend', 'cuda', '--epochs', '1', '--steps-per-epoch', '1000', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stderr.includes(`environments: device (${TRADING_NOTE})`), r.stderr);
  const dir = readdirSync(runs).find((d) => d !== 'trading-6e-device.json');
  assert.doesNotMatch(readFileSync(join(runs, dir!, 'events.log'), 'utf8'), /environments on the host/);
  const metrics = await readRunMetrics(join(runs, dir!));
  assert.ok(metrics.some((x) => x.type === 'episode'), 'training episodes reach metrics.jsonl');
  const evals = metrics.flatMap((x) => (x.type === 'epoch' ? [x.eval_mean_return] : []));
  assert.ok(evals.length === 1 && Number.isFinite(evals[0]), `the epoch's validation walk: ${evals.join(', ')}`);
});

test('the cartpole preset with the device collector learns CartPole: a greedy mean return >= 475 at some epoch (seed 1)', { skip }, async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const preset = loadPreset('cartpole');
  const file = join(runs, 'cartpole-device.json');
  writeFileSync(file, JSON.stringify({ ...preset, env: { ...preset.env, collector: 'device' } }));
  const r = train(['--config', file, '--backend', 'cuda', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /environments: device/);
  const dir = readdirSync(runs).find((d) => d !== 'cartpole-device.json');
  const evals = (await readRunMetrics(join(runs, dir!))).flatMap((x) => (x.type === 'epoch' ? [x.eval_mean_return] : []));
  assert.ok(Math.max(...evals) >= 475, `greedy mean return by epoch: ${evals.join(', ')}`);
});

test('a NaN injected into the online Q-values halts the CUDA trainer at that step and names the tensor', { skip }, async () => {
  const t = createTrainer({ config: config(), backend: 'cuda' }, { injectNan: { tensor: 'q_online', step: 40 } });
  await assert.rejects(t.run(200), /NaN in q_online at step 40/);
  const s = readScalars(t.scalars, layout);
  assert.equal(s.step, 39);
  await assert.rejects(t.run(1), /NaN in q_online at step 40/, 'the trainer stays halted');
});

test('a checkpoint written on the GPU loads on the CPU, and one written on the CPU loads on the GPU, bit for bit', { skip }, async () => {
  const g = createTrainer({ config: config(), backend: 'cuda' });
  await g.run(300);
  const fromGpu = g.saveState();
  const c = createTrainer({ config: config(), backend: 'cpu' });
  c.loadState(fromGpu);
  assert.deepEqual(c.saveState(), fromGpu);
  await c.run(100);
  const fromCpu = c.saveState();
  const g2 = createTrainer({ config: config(), backend: 'cuda' });
  g2.loadState(fromCpu);
  assert.deepEqual(g2.saveState(), fromCpu);
  await g2.run(50);
  assert.equal(readScalars(g2.scalars, layout).step, 450);
});

test('a replay that does not fit on the GPU goes to the CPU while the learner stays on the GPU', { skip }, async () => {
  const t = createTrainer({ config: config({ replay: { capacity: 8192, simulate_oom: true } }), backend: 'cuda' });
  assert.equal(t.info.backend, 'cuda');
  assert.equal(t.info.replayBackend, 'cpu');
  assert.match(t.info.replayFallbackReason, /out of memory/);
  await t.run(200);
  const s = readScalars(t.scalars, layout);
  assert.equal(s.step, 200);
  assert.ok(s.per_total! > 0);
});

test('a failing replay kernel moves the buffer to the CPU for the rest of the run, and training goes on', { skip }, async () => {
  process.env.DQN_SIMULATE_REPLAY_KERNEL_ERROR = '1';
  try {
    const t = createTrainer({ config: config(onDevice), backend: 'cuda' });
    assert.equal(t.info.replayBackend, 'cuda');
    assert.equal(t.info.collector, 'device');
    const r = await t.run(200);
    assert.equal(t.info.replayBackend, 'cpu');
    assert.match(t.info.replayFallbackReason, /simulated failure/);
    // The device collector writes into the GPU replay: it hands over to the host, its episodes reported.
    assert.equal(t.info.collector, 'host');
    assert.equal(t.info.collectorReason, 'the replay buffer moved to the CPU (cpu), so collection went on on the host');
    for (let i = 1; i < r.episodeEnvSteps.length; i++) assert.ok(r.episodeEnvSteps[i]! > r.episodeEnvSteps[i - 1]!, 'in env-step order');
    assert.equal(readScalars(t.scalars, layout).step, 200);
  } finally {
    delete process.env.DQN_SIMULATE_REPLAY_KERNEL_ERROR;
  }
});

test('a lost CUDA context mid-run: the run continues on the CPU from the last checkpoint and logs why', { skip }, () => {
  // In a child process: a sticky error leaves that process's context unusable.
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = train(['--preset', 'cartpole', '--backend', 'cuda', '--epochs', '2', '--steps-per-epoch', '300', '--runs-dir', runs, '--json'],
    { ...process.env, DQN_SIMULATE_STICKY_ERROR: '450' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json!.steps, 600);
  const [dir] = readdirSync(runs);
  const log = readFileSync(join(runs, dir!, 'events.log'), 'utf8');
  assert.match(log, /"kind":"fallback","message":"compute on CPU: CUDA context lost: .*continuing from .*epoch-1"/);
});

// The preset's claim is about its seeds, not one seed (Agarwal et al. 2021): seeds 1-8 trained at
// once as one GPU seed group in deterministic mode (so the outcome is the build's, every time),
// and their interquartile mean at the bar. One seed is not enough: run L34 met seed 1 (TF32) at
// 500 for epochs 3-7 and 355.2 after epoch 10, after CartPole's sin and cos changed its trajectory.
// The preset's target_return (475) is set aside here: with it the seeds would train one after
// another (a GPU seed group trains in lockstep), and this measures all 10 epochs of the group, as
// the runs this bar was met on did.
for (const precision of ['tf32', 'bf16'] as const) {
  test(`the cartpole preset on the GPU (${precision}, deterministic) solves CartPole: IQM over seeds 1-8 of the greedy mean return >= 475`, { skip }, () => {
    const runs = mkdtempSync(join(tmpdir(), 'runs-'));
    const preset = loadPreset('cartpole');
    const file = join(runs, 'cartpole-deterministic.json');
    writeFileSync(file, JSON.stringify({ ...preset, schedule: { ...preset.schedule, deterministic: true, target_return: null } }));
    const r = train(['--config', file, '--backend', 'cuda', '--precision', precision, '--seeds', '8', '--runs-dir', runs, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const summary = r.json as { backend: string; runs: { state: string; eval_mean_return: number }[]; eval_mean_return: { n: number; iqm: number } };
    assert.equal(summary.backend, 'cuda');
    assert.deepEqual(summary.runs.map((x) => x.state), Array(8).fill('finished'));
    const returns = summary.runs.map((x) => x.eval_mean_return).join(', ');
    assert.equal(summary.eval_mean_return.n, 8);
    assert.ok(summary.eval_mean_return.iqm >= 475, `IQM ${summary.eval_mean_return.iqm} over the seeds' returns ${returns}`);
  });
}

test('trading-6e on the GPU runs an epoch and reports its eval object', { skip }, () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = train(['--preset', 'trading-6e', '--backend', 'cuda', '--epochs', '1', '--steps-per-epoch', '2000', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json!.backend, 'cuda');
  const ev = r.json!.eval as Record<string, number>;
  for (const key of ['return', 'sharpe', 'max_drawdown']) assert.ok(Number.isFinite(ev[key]), `eval.${key} = ${ev[key]}`);
});
