// The dashboard's system panel on a GPU machine: while a CUDA run trains, the session's system
// samples (main/trainer/system-stats.ts, one about every SYSTEM_PERIOD_MS) carry real NVML
// readings of the GPU, and the addon's nvmlSample() gives the same readings when called directly.
// These run on a GPU machine (bench/cuda-device.sh learner-tests) and skip elsewhere, saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunConfigInput } from '../../common/config.ts';
import { SYSTEM_PERIOD_MS, type SystemSample } from '../../common/protocol.ts';
import type { BackendStatus } from '../../common/run.ts';
import { startRun } from '../../main/trainer/session.ts';
import { loadAddon, type NvmlReading } from '../addon.ts';

const addon = loadAddon();
const gpu = addon.backendInfo();
const skip = gpu.cudaAvailable ? false : `no usable GPU (${gpu.reason}): the NVML system-panel tests run on a GPU machine (bench/cuda-device.sh learner-tests)`;

const GiB = 2 ** 30;
const TiB = 2 ** 40;
/** Samples to collect before the run is stopped: the first one comes a period after the first poll. */
const WANTED_SAMPLES = 5;

/** Plausible readings of a real GPU: every field present and in range ('where' names the reading). */
function assertPlausible(g: NvmlReading, where: string): void {
  assert.equal(g.available, true, `${where}: NVML unavailable: ${g.reason}`);
  assert.equal(g.reason, '', `${where}: reason`);
  const { utilPercent: util, memUsedBytes: used, memTotalBytes: total, temperatureC: temp, powerW: power } = g;
  assert.ok(typeof total === 'number' && total >= GiB && total <= TiB, `${where}: memTotalBytes ${total}`);
  assert.ok(typeof used === 'number' && used > 0 && used <= total, `${where}: memUsedBytes ${used} of ${total}`);
  assert.ok(typeof util === 'number' && util >= 0 && util <= 100, `${where}: utilPercent ${util}`);
  assert.ok(typeof temp === 'number' && temp > 0 && temp < 120, `${where}: temperatureC ${temp}`);
  assert.ok(typeof power === 'number' && power > 0 && power < 2000, `${where}: powerW ${power}`);
}

/**
 * A CartPole run on the GPU with far more steps than the test waits for: it is stopped once
 * WANTED_SAMPLES system samples came, so the test takes about WANTED_SAMPLES seconds whatever the
 * GPU's speed, and every sample is taken while the learner trains.
 */
const config: RunConfigInput = {
  name: 'system-cuda',
  seed: 3,
  backend: 'cuda',
  env: { kind: 'cartpole', num_envs: 4 },
  network: { hidden: [128, 128] },
  replay: { capacity: 50_000 },
  optim: { lr: 5e-4, batch_size: 128 },
  exploration: { eps_decay_steps: 10_000 },
  schedule: { epochs: 20, steps_per_epoch: 20_000, learning_starts: 500, train_every: 1, eval_episodes: 2, checkpoint_every: 20 },
};

test('the system samples of a CUDA run carry real NVML readings of the GPU while it trains', { skip, timeout: 180_000 }, async (t) => {
  assert.equal(SYSTEM_PERIOD_MS <= 2000, true, `SYSTEM_PERIOD_MS ${SYSTEM_PERIOD_MS}: this test waits for ${WANTED_SAMPLES} periods`);
  const runsDir = mkdtempSync(join(tmpdir(), 'system-cuda-'));
  try {
    const samples: SystemSample[] = [];
    const backends: BackendStatus[] = [];
    let enough!: () => void;
    const gotEnough = new Promise<void>((r) => (enough = r));
    const handle = await startRun(
      { config, runsDir },
      {
        onSystem: (s) => {
          samples.push(s);
          if (samples.length >= WANTED_SAMPLES) enough();
        },
        onBackends: (b) => backends.push(b),
      },
    );
    let ended = false;
    const done = handle.done.finally(() => (ended = true));
    await Promise.race([gotEnough, done]);
    if (!ended) await handle.stop();
    const outcome = await done;

    assert.notEqual(outcome.state, 'halted', `the run halted: ${outcome.haltReason}`);
    assert.ok(backends.length > 0 && backends.every((b) => b.compute.backend === 'cuda'), `compute backends: ${JSON.stringify(backends.map((b) => b.compute))}`);
    assert.ok(samples.length >= WANTED_SAMPLES, `${samples.length} system samples in ${outcome.session_wall_s?.toFixed(1)} s (${outcome.steps} steps)`);
    samples.forEach((s, i) => assertPlausible(s.gpu, `sample ${i} (step ${s.step})`));
    const utils = samples.map((s) => s.gpu.utilPercent);
    assert.ok(utils.some((u) => u! > 0), `GPU utilisation stayed 0 while the CUDA learner trained: ${utils.join(', ')}`);
    const rates = samples.map((s) => s.stepsPerSec);
    assert.ok(rates.some((r) => r > 0), `steps/s of the samples: ${rates.join(', ')}`);
    // What the panel showed, for the record (bench/RESULTS.md).
    for (const s of samples) {
      const g = s.gpu;
      t.diagnostic(`step ${s.step}: ${s.stepsPerSec.toFixed(0)} steps/s, GPU ${g.utilPercent} %, ${(g.memUsedBytes! / 2 ** 30).toFixed(2)} of ` +
        `${(g.memTotalBytes! / 2 ** 30).toFixed(1)} GiB, ${g.temperatureC} C, ${g.powerW!.toFixed(0)} W, host CPU ${s.hostCpuPercent.toFixed(0)} %, RSS ${(s.rssBytes / 2 ** 20).toFixed(0)} MiB`);
    }
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
});

test('nvmlSample() called directly reads the GPU: available, every reading present and plausible', { skip }, () => {
  assert.equal(typeof addon.nvmlSample, 'function', 'the addon has no nvmlSample (rebuild it)');
  assertPlausible(addon.nvmlSample!(), 'nvmlSample()');
  assertPlausible(addon.nvmlSample!(0), 'nvmlSample(0)');
});
