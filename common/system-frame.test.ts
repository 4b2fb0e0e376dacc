import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameBuilder } from './frame-builder.ts';
import { FrameSchema, SYSTEM_SERIES, type SystemSample } from './protocol.ts';

const sample = (step: number, stepsPerSec: number, gpu: SystemSample['gpu']): SystemSample => ({
  step,
  env_steps: step * 4,
  wall_s: step / 1000,
  stepsPerSec,
  envStepsPerSec: stepsPerSec * 4,
  processCpuPercent: 95,
  hostCpuPercent: 60,
  rssBytes: 200 * 1024 * 1024,
  gpu,
});

test('system samples become SYSTEM_SERIES summaries at x = step, and the frame carries the last GPU status', () => {
  const b = new FrameBuilder('runs/x');
  b.addSystem(sample(1000, 900, { available: false, reason: 'NVML not found' }));
  b.addSystem(sample(2000, 1100, { available: false, reason: 'NVML not found' }));
  const f = FrameSchema.parse(b.take());
  const rate = f.series[SYSTEM_SERIES.stepsPerSec]!;
  assert.deepEqual([rate.x0, rate.x1, rate.n, rate.min, rate.max, rate.mean, rate.last], [1000, 2000, 2, [1000, 900], [2000, 1100], 1000, 1100]);
  assert.equal(f.series[SYSTEM_SERIES.envStepsPerSec]!.last, 4400);
  assert.equal(f.series[SYSTEM_SERIES.rssMiB]!.last, 200);
  assert.equal(f.series[SYSTEM_SERIES.gpuUtil], undefined, 'no GPU series without NVML');
  assert.deepEqual(f.gpu, { available: false, reason: 'NVML not found' });
  assert.equal(b.take(), undefined, 'nothing new: no frame');
});

test('GPU readings become their series (MiB, °C, W) when NVML gave them', () => {
  const b = new FrameBuilder('runs/x');
  b.addSystem(sample(10, 5, { available: true, reason: '', utilPercent: 87, memUsedBytes: 3 * 1024 ** 3, memTotalBytes: 80 * 1024 ** 3, temperatureC: 61, powerW: 312.5 }));
  const f = FrameSchema.parse(b.take());
  assert.equal(f.series[SYSTEM_SERIES.gpuUtil]!.last, 87);
  assert.equal(f.series[SYSTEM_SERIES.gpuMemUsedMiB]!.last, 3072);
  assert.equal(f.series[SYSTEM_SERIES.gpuMemTotalMiB]!.last, 81920);
  assert.equal(f.series[SYSTEM_SERIES.gpuTemperature]!.last, 61);
  assert.equal(f.series[SYSTEM_SERIES.gpuPower]!.last, 312.5);
  assert.deepEqual(f.gpu, { available: true, reason: '' });
});
