import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { FrameBuilder } from '../../common/frame-builder.ts';
import type { SystemSample } from '../../common/protocol.ts';
import { createCsvRequester } from '../lib/csv-request.ts';
import { RedrawScheduler } from '../lib/redraw.ts';
import { createDashboard } from '../store.ts';
import { gpuNote, SystemPanelView, systemNote } from './SystemPanel.tsx';
import { parseRunConfig } from '../../common/config.ts';

/** NVML's status on a machine without the NVIDIA driver, in the addon's words (native/src/addon/nvml_binding.cpp). */
const noGpu = { available: false, reason: 'NVML not found (libnvidia-ml.so.1: cannot open shared object file: No such file or directory): is the NVIDIA driver installed?' };
/** What the panel says in place of the GPU charts there, and the reason in its title. */
const NO_DRIVER = 'No NVIDIA GPU driver on this machine: no GPU readings (training runs on the CPU)';
const sample = (step: number, stepsPerSec: number, gpu: SystemSample['gpu']): SystemSample => ({
  step, env_steps: step, wall_s: step / 1000, stepsPerSec, envStepsPerSec: stepsPerSec, processCpuPercent: 100, hostCpuPercent: 50, rssBytes: 300e6, gpu,
});

/** A dashboard whose live run runs/a sent `samples` in one frame. */
function liveWith(samples: SystemSample[]) {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: 'runs/a' });
  const b = new FrameBuilder('runs/a');
  for (const s of samples) b.addSystem(s);
  d.apply(b.take()!);
  return d;
}

function panel(gpu: SystemSample['gpu']) {
  const d = liveWith([sample(1000, 1234, gpu), sample(2000, 1500, gpu)]);
  const scheduler = new RedrawScheduler(() => 0);
  const csv = createCsvRequester({ send: () => undefined, subscribe: () => () => undefined } as never);
  return { d, html: renderToStaticMarkup(<SystemPanelView dashboard={d} scheduler={scheduler} csv={csv} note={gpuNote(d.store.getState())} />) };
}

test('the system panel draws the steps/s series and, without the NVIDIA driver, says so plainly in place of the GPU charts, with the reason in its title', () => {
  const { d, html } = panel(noGpu);
  const rate = d.live.get('system/steps_per_s');
  assert.ok(rate && rate.length >= 2, 'the steps/s series holds the frame');
  assert.match(html, /Throughput/);
  assert.match(html, /steps\/s/);
  assert.match(html, /env steps\/s/);
  assert.match(html, /Host CPU/);
  assert.match(html, /Host memory/);
  const note = `<p class="system-gpu-note" role="note" title="${noGpu.reason}">${NO_DRIVER}</p>`;
  assert.ok(html.includes(note), `${note} in ${html}`);
  assert.doesNotMatch(html, /GPU readings hidden/, 'no alarm on a machine that only has a CPU');
  assert.doesNotMatch(html, /GPU utilisation/);
});

test('where the NVIDIA driver is there but NVML fails, the note still says the GPU readings are hidden and why', () => {
  for (const reason of ['nvmlInit failed: Driver Not Loaded', 'NVML has no GPU 0: Not Found', 'libnvidia-ml.so.1 lacks an NVML function this console uses (driver too old?)']) {
    const { html } = panel({ available: false, reason });
    const note = `<p class="system-gpu-note" role="note">GPU readings hidden: ${reason}</p>`;
    assert.ok(html.includes(note), `${note} in ${html}`);
    assert.doesNotMatch(html, /No NVIDIA GPU driver/);
  }
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
  assert.match(gpuNote(d.store.getState())!.text, /appear while a run is live/);
  d.apply({ type: 'state', state: 'running', runDir: 'runs/a' });
  assert.match(gpuNote(d.store.getState())!.text, /waiting for the first system sample/);
});

/** The panel as SystemPanel renders it for the dashboard's state. */
function render(d: ReturnType<typeof createDashboard>) {
  const st = d.store.getState();
  const scheduler = new RedrawScheduler(() => 0);
  const csv = createCsvRequester({ send: () => undefined, subscribe: () => () => undefined } as never);
  return renderToStaticMarkup(<SystemPanelView dashboard={d} scheduler={scheduler} csv={csv} note={gpuNote(st)} empty={systemNote(st)} />);
}

test("a past run opened from the history draws its own system charts and its last sample's GPU readings", () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: 'runs/live' });
  const b = new FrameBuilder('runs/live');
  b.addSystem(sample(10, 5, noGpu));
  d.apply(b.take()!);
  const gpu = { available: true, reason: '', utilPercent: 95, memUsedBytes: 4e9, memTotalBytes: 8e10, temperatureC: 70, powerW: 500 };
  d.apply({ type: 'runData', runDir: 'runs/past', config: parseRunConfig({ env: { kind: 'cartpole' } }), scalars: [], episodes: [], epochs: [], system: [sample(1000, 1234, gpu), sample(2000, 1500, gpu)] });
  const rate = d.shown().get('system/steps_per_s')!;
  assert.deepEqual(Array.from(rate.y.subarray(0, rate.length)), [1234, 1500]);
  assert.equal(d.shown().get('system/gpu_util_percent')!.y[1], 95);
  const st = d.store.getState();
  assert.equal(gpuNote(st), undefined, "the past run's GPU status, not the live run's (no NVML)");
  assert.equal(systemNote(st), undefined);
  const html = render(d);
  assert.match(html, /Throughput/);
  assert.match(html, /GPU utilisation/);
  assert.match(html, /GPU power/);
  assert.doesNotMatch(html, /role="note"/);
  // Back to live: the live run's note again.
  d.showLive();
  assert.equal(gpuNote(d.store.getState())?.text, NO_DRIVER);
});

test('a past run without system samples (a CLI run, a short run, an older run) says why in place of the charts', () => {
  const d = createDashboard();
  d.apply({ type: 'runData', runDir: 'runs/older', config: parseRunConfig({ env: { kind: 'cartpole' } }), scalars: [], episodes: [], epochs: [] });
  const html = render(d);
  assert.match(html, /role="note"[^>]*>No system readings in this run(&#x27;|')s metrics\.jsonl: .*runs trained by the CLI \(npm run train, npm run sweep\)/);
  assert.doesNotMatch(html, /Throughput/);
  assert.doesNotMatch(html, /GPU utilisation/);
  // A run whose samples say NVML was absent: the charts, and the GPU note with that run's reason.
  d.apply({ type: 'runData', runDir: 'runs/cpu', config: parseRunConfig({ env: { kind: 'cartpole' } }), scalars: [], episodes: [], epochs: [], system: [sample(1000, 900, noGpu)] });
  const cpuHtml = render(d);
  assert.match(cpuHtml, /Throughput/);
  assert.ok(cpuHtml.includes(`<p class="system-gpu-note" role="note" title="${noGpu.reason}">${NO_DRIVER}</p>`), "that run's note");
});

test('where steps/s and env steps/s coincide (a gradient step per env step), env steps/s is dashed in the legend as on the chart: one solid line hid the other', () => {
  const { html } = panel(noGpu); // the samples' two rates are equal
  const legend = /<ul class="chart-legend" aria-label="Throughput legend">(.*?)<\/ul>/.exec(html)?.[1] ?? '';
  const entry = (label: string) => new RegExp(`<li [^>]*>(?:(?!</li>).)*${label}</li>`).exec(legend)?.[0] ?? '';
  assert.doesNotMatch(entry('steps/s'), /stroke-dasharray/, 'steps/s solid');
  assert.match(entry('env steps/s'), /stroke-dasharray="6 4"/, 'env steps/s dashed');
  // The curves as drawn (recharts draws none in a static render): e2e/flow.ts systemPanel.
});

test('a chart with one point says "1 point", not "1 points"', () => {
  const html = render(liveWith([sample(1000, 1234, noGpu)]));
  assert.match(html, /data-testid="chart-host-memory-count">1 point</);
  assert.match(html, /data-testid="chart-throughput-count">2 points</, 'two lines, a point each');
});
