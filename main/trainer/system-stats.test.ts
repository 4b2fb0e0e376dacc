import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemSampleSchema, type SystemSample } from '../../common/protocol.ts';
import { loadAddon } from '../../native/addon.ts';
import { startRun } from './session.ts';
import { cpuMark, cpuUse, nvmlReader, residentBytes, SystemSampler } from './system-stats.ts';

test('host CPU and resident memory readings are plausible: RSS near process.memoryUsage().rss, CPU of a busy loop near one core', () => {
  const rss = residentBytes();
  const ref = process.memoryUsage().rss;
  assert.ok(rss > ref / 2 && rss < ref * 2, `rss ${rss} vs process.memoryUsage().rss ${ref}`);
  const a = cpuMark();
  const until = performance.now() + 300;
  let x = 0;
  while (performance.now() < until) x += Math.sqrt(x + 1);
  const use = cpuUse(a, cpuMark());
  assert.ok(x > 0);
  assert.ok(use.processCpuPercent > 30 && use.processCpuPercent < 250, `process CPU ${use.processCpuPercent}% while spinning one thread`);
  assert.ok(use.hostCpuPercent > 0 && use.hostCpuPercent <= 100, `machine CPU ${use.hostCpuPercent}%`);
});

test('the NVML reader of the real addon says absent with a reason on a machine without the NVIDIA driver, and does not throw', (t) => {
  const reading = nvmlReader(loadAddon())();
  if (reading.available) {
    t.diagnostic(`NVML present: ${JSON.stringify(reading)}`);
    assert.equal(typeof reading.memTotalBytes, 'number');
    return;
  }
  assert.match(reading.reason, /NVML/);
  assert.ok(reading.reason.length > 10, reading.reason);
});

test('an addon without nvmlSample, or one that throws, reads as absent with the reason', () => {
  assert.deepEqual(nvmlReader({})(), { available: false, reason: 'the native addon has no NVML reader (rebuild it)' });
  const r = nvmlReader({ nvmlSample: () => { throw new Error('boom'); } })();
  assert.equal(r.available, false);
  assert.match(r.reason, /boom/);
});

test('the sampler takes at most one sample per period, and its rates are steps over run seconds since the previous sample', () => {
  let now = 0;
  const s = new SystemSampler(() => ({ available: false, reason: 'no NVML here' }), 1000, () => now);
  assert.equal(s.sample(0, 0, 0), undefined, 'the first call sets the baseline');
  now = 400;
  assert.equal(s.sample(500, 1000, 0.4), undefined, 'too soon');
  now = 1000;
  const x = s.sample(2000, 8000, 1.0)!;
  assert.ok(x);
  assert.equal(x.stepsPerSec, 2000);
  assert.equal(x.envStepsPerSec, 8000);
  assert.deepEqual(x.gpu, { available: false, reason: 'no NVML here' });
  assert.ok(x.rssBytes > 1e6);
  SystemSampleSchema.parse(x);
  now = 2000;
  const y = s.sample(2000, 8000, 1.5)!;
  assert.equal(y.stepsPerSec, 0, 'an evaluation (no gradient steps) reads as 0 steps/s');
});

test('a live CPU run reports system samples about once a second: positive steps/s, the host RSS, and NVML absent with its reason', { timeout: 60_000 }, async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'dqn-system-'));
  const samples: SystemSample[] = [];
  let enough!: () => void;
  const two = new Promise<void>((r) => (enough = r));
  try {
    const config = {
      name: 'system-stats', backend: 'cpu', seed: 1, env: { kind: 'cartpole', num_envs: 4 }, network: { hidden: [16, 16] }, replay: { capacity: 2048 },
      optim: { batch_size: 16 }, schedule: { epochs: 1000, steps_per_epoch: 500, learning_starts: 64, eval_episodes: 1 },
    };
    const h = await startRun({ config: config as never, runsDir }, { onSystem: (s) => (samples.push(s), samples.length >= 2 && enough()) });
    await two;
    await h.stop();
    const [a, b] = samples as [SystemSample, SystemSample];
    assert.ok(b.wall_s - a.wall_s > 0.5, `samples ${a.wall_s} s and ${b.wall_s} s of run time: at most about one a second`);
    assert.ok(b.stepsPerSec > 0 && b.envStepsPerSec > 0, JSON.stringify(b));
    const rss = process.memoryUsage().rss;
    assert.ok(b.rssBytes > rss / 2 && b.rssBytes < rss * 2);
    if (!b.gpu.available) assert.match(b.gpu.reason, /NVML/);
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
});
