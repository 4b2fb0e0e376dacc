import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { FrameBuilder } from '../../common/frame-builder.ts';
import type { SystemSample } from '../../common/protocol.ts';
import { createCsvRequester } from '../lib/csv-request.ts';
import { RedrawScheduler } from '../lib/redraw.ts';
import { createDashboard } from '../store.ts';
import { gpuNote, SystemPanelView } from './SystemPanel.tsx';

const noGpu = { available: false, reason: 'NVML not found (libnvidia-ml.so.1: cannot open shared object file): is the NVIDIA driver installed?' };
const sample = (step: number, stepsPerSec: number, gpu: SystemSample['gpu']): SystemSample => ({
  step, env_steps: step, wall_s: step / 1000, stepsPerSec, envStepsPerSec: stepsPerSec, processCpuPercent: 100, hostCpuPercent: 50, rssBytes: 300e6, gpu,
});

function panel(gpu: SystemSample['gpu']) {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: 'runs/a' });
  const b = new FrameBuilder('runs/a');
  b.addSystem(sample(1000, 1234, gpu));
  b.addSystem(sample(2000, 1500, gpu));
  d.apply(b.take()!);
  const scheduler = new RedrawScheduler(() => 0);
  const csv = createCsvRequester({ send: () => undefined, subscribe: () => () => undefined } as never);
  return { d, html: renderToStaticMarkup(<SystemPanelView dashboard={d} scheduler={scheduler} csv={csv} note={gpuNote(d.store.getState())} />) };
}

test('the system panel draws the steps/s series and, without NVML, a note with the reason in place of the GPU charts', () => {
  const { d, html } = panel(noGpu);
  const rate = d.live.get('system/steps_per_s');
  assert.ok(rate && rate.length >= 2, 'the steps/s series holds the frame');
  assert.match(html, /Throughput/);
  assert.match(html, /steps\/s/);
  assert.match(html, /env steps\/s/);
  assert.match(html, /Host CPU/);
  assert.match(html, /Host memory/);
  assert.match(html, /role="note"[^>]*>GPU readings hidden: NVML not found/);
  assert.doesNotMatch(html, /GPU utilisation/);
});

test('with NVML readings the panel draws the GPU charts and no note', () => {
  const { html } = panel({ available: true, reason: '', utilPercent: 90, memUsedBytes: 1e9, memTotalBytes: 8e10, temperatureC: 60, powerW: 300 });
  assert.match(html, /GPU utilisation/);
  assert.match(html, /GPU memory/);
  assert.match(html, /GPU temperature/);
  assert.match(html, /GPU power/);
  assert.doesNotMatch(html, /GPU readings hidden/);
});

test('before any system sample the note says why there are no GPU readings yet', () => {
  const d = createDashboard();
  assert.match(gpuNote(d.store.getState())!, /appear while a run is live/);
  d.apply({ type: 'state', state: 'running', runDir: 'runs/a' });
  assert.match(gpuNote(d.store.getState())!, /waiting for the first system sample/);
});
