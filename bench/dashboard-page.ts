// The dashboard under a live stream, measured in the real page (issue 16, item 2):
//   npm run bench -- dashboard --stream RATE [--seconds S] [--json]   a synthetic host at RATE steps/s
//   npm run bench -- dashboard --trainer [--seconds S] [--json]       the real CPU trainer, tiny network
// It serves the built renderer with the browser-mode bridge (main/serve/server.ts), opens it in
// Debian's Chromium (playwright-core), starts a run from the page, and while it streams:
//  - round trip: every 200 ms a `ping` sent by the page through its WebSocket, timed from this
//    process around page.evaluate (so a busy page main thread counts), p50 / p95 / max;
//  - frames: live frames applied by the page, frames lost (gaps in their seq), and the page's
//    animation frames per second and long tasks (> 50 ms) as jank;
//  - memory every 15 s: the page's JS heap after a forced GC and its DOM nodes (Chrome DevTools
//    Protocol), the series' bytes, and the trainer host's resident set (/proc/PID/status);
// then clicks Stop and times until the run state shows Idle. Targets (2 cores, 100,000 steps/s):
// round trip p95 < 100 ms, Stop to Idle < 1 s, memory flat after the first minute.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { PresetStore } from '../main/presets-store.ts';
import { forkHostProcess } from '../main/serve/fork-host.ts';
import { ensureRendererBuilt } from '../main/serve/renderer-build.ts';
import { startBridgeServer } from '../main/serve/server.ts';
import type { ProbeStats } from '../renderer/probe.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PING_EVERY_MS = 200;
const MEMORY_EVERY_MS = 15_000;

/** The tiny CartPole run of the trainer mode (the issue's new-user case: 32-32 network, batch 32, 500-step epochs). */
const TINY = {
  name: 'bench-tiny',
  backend: 'cpu',
  env: { kind: 'cartpole', num_envs: 4 },
  network: { hidden: [32, 32] },
  replay: { capacity: 4096 },
  optim: { batch_size: 32 },
  schedule: { epochs: 100_000, steps_per_epoch: 500, learning_starts: 64, eval_episodes: 1 },
};

export interface PageBenchOptions {
  /** Synthetic steps/s, or undefined for the real CPU trainer. */
  rate?: number;
  seconds: number;
  json: boolean;
  /** Write a CPU profile of the page (10 s from the middle of the run) here and print its top functions. */
  cpuProfile?: string;
}

interface MemorySample {
  t_s: number;
  /** The machine's 1-minute load average (other processes compete for the 2 cores too). */
  load1: number;
  pageHeapMiB: number;
  domNodes: number;
  seriesMiB: number;
  hostRssMiB: number;
}

export interface PageBenchResult {
  mode: string;
  seconds: number;
  pings: number;
  roundTripMs: { p50: number; p95: number; max: number };
  stopToIdleMs: number;
  stepsAtStop: number;
  framesApplied: number;
  framesLost: number;
  animationFramesPerSec: number;
  longTasks: number;
  longTaskMs: number;
  memory: MemorySample[];
  /** Page heap and host RSS growth from the first sample at or after 60 s to the last, MiB per minute. */
  pageHeapSlopeMiBPerMin: number;
  hostRssSlopeMiBPerMin: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Least-squares slope of (t, v) in v-units per minute. */
function slopePerMin(pts: { t: number; v: number }[]): number {
  if (pts.length < 2) return NaN;
  const n = pts.length;
  const mt = pts.reduce((a, p) => a + p.t, 0) / n;
  const mv = pts.reduce((a, p) => a + p.v, 0) / n;
  const num = pts.reduce((a, p) => a + (p.t - mt) * (p.v - mv), 0);
  const den = pts.reduce((a, p) => a + (p.t - mt) ** 2, 0);
  return den > 0 ? (num / den) * 60 : NaN;
}

const runState = (page: Page) => page.getByTestId('run-state').textContent();

/**
 * Runs the page benchmark and prints its numbers.
 * @throws Error when Chromium is missing, the page does not come up or the run never streams.
 */
export async function runPageBench(o: PageBenchOptions): Promise<PageBenchResult> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  await ensureRendererBuilt(ROOT, (l) => console.error(l));
  const tmp = mkdtempSync(join(tmpdir(), 'dqn-bench-page-'));
  mkdirSync(join(tmp, 'presets'), { recursive: true });
  writeFileSync(join(tmp, 'presets', 'bench-tiny.json'), JSON.stringify(TINY));
  const synthetic = o.rate !== undefined;
  const entry = synthetic ? join(ROOT, 'bench', 'synthetic-host.ts') : join(ROOT, 'main', 'trainer', 'host-entry.ts');
  const env = { ...process.env, DQN_RUNS_DIR: join(tmp, 'runs'), DQN_DATA_DIRS: tmp, ...(synthetic ? { DQN_SYNTHETIC_RATE: String(o.rate) } : {}) };
  const server = await startBridgeServer({
    host: '127.0.0.1',
    port: 0,
    token: randomBytes(18).toString('base64url'),
    staticDir: join(ROOT, 'out', 'renderer'),
    presets: new PresetStore(join(tmp, 'presets')),
    spawnHost: () => forkHostProcess(entry, env),
    logDir: join(tmp, 'logs'),
  });
  const browser = await chromium.launchPersistentContext(join(tmp, 'chromium'), { executablePath: CHROMIUM, args: CHROMIUM_FLAGS, viewport: { width: 1500, height: 1000 } });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(server.url);
    const cdp = await browser.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.getByRole('combobox', { name: 'Preset' }).locator('option', { hasText: 'bench-tiny (user)' }).waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByRole('combobox', { name: 'Preset' }).selectOption({ label: 'bench-tiny (user)' });
    await page.getByRole('button', { name: 'Start' }).and(page.locator(':enabled')).waitFor({ timeout: 60_000 });
    await page.evaluate(() => (window as unknown as { dqnProbe: { start(): void } }).dqnProbe.start());
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByTestId('run-state').filter({ hasText: /^Running$/ }).waitFor({ timeout: 60_000 });

    const t0 = performance.now();
    const elapsed = () => (performance.now() - t0) / 1000;
    const rtts: number[] = [];
    const memory: MemorySample[] = [];
    const sampleMemory = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
      const metric = (n: string) => metrics.find((m) => m.name === n)?.value ?? NaN;
      const stats = await page.evaluate(() => (window as unknown as { dqnProbe: { stats(): ProbeStats } }).dqnProbe.stats());
      const pid = server.supervisor.current?.pid ?? -1;
      memory.push({ t_s: Math.round(elapsed()), load1: loadavg()[0]!, pageHeapMiB: metric('JSHeapUsedSize') / 2 ** 20, domNodes: metric('Nodes'), seriesMiB: stats.seriesBytes / 2 ** 20, hostRssMiB: rssMiB(pid) });
      if (!o.json) console.error(`  ${memory.at(-1)!.t_s}s: page heap ${memory.at(-1)!.pageHeapMiB.toFixed(1)} MiB, ${memory.at(-1)!.domNodes} DOM nodes, host RSS ${memory.at(-1)!.hostRssMiB.toFixed(0)} MiB; p95 so far ${rtts.length ? `${pct(rtts, 95).toFixed(1)} ms` : 'n/a'} over ${rtts.length} pings`);
    };
    await sampleMemory();
    let nextMemory = MEMORY_EVERY_MS;
    let profiling: 'before' | 'on' | 'done' = o.cpuProfile ? 'before' : 'done';
    while (elapsed() < o.seconds) {
      if (profiling === 'before' && elapsed() >= o.seconds / 2) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.start');
        profiling = 'on';
      } else if (profiling === 'on' && elapsed() >= o.seconds / 2 + 10) {
        const { profile } = (await cdp.send('Profiler.stop')) as { profile: CpuProfile };
        writeFileSync(o.cpuProfile!, JSON.stringify(profile));
        printTopFunctions(profile);
        profiling = 'done';
      }
      const ts = performance.now();
      await page.evaluate(() => (window as unknown as { dqnProbe: { ping(): Promise<number> } }).dqnProbe.ping());
      rtts.push(performance.now() - ts);
      if (elapsed() * 1000 >= nextMemory) {
        nextMemory += MEMORY_EVERY_MS;
        await sampleMemory();
      }
      const wait = PING_EVERY_MS - (performance.now() - ts);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await sampleMemory();
    const before = await page.evaluate(() => (window as unknown as { dqnProbe: { stats(): ProbeStats } }).dqnProbe.stats());
    if ((await runState(page)) !== 'Running') throw new Error(`the run is no longer running after ${o.seconds} s: ${await runState(page)}`);
    const stepsAtStop = Number(/step (\d+)/.exec((await page.locator('header').textContent()) ?? '')?.[1] ?? NaN);
    const ts = performance.now();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid=run-state]')?.textContent === 'Idle', undefined, { polling: 'raf', timeout: 60_000 });
    const stopToIdleMs = performance.now() - ts;

    const late = memory.filter((m) => m.t_s >= 60);
    const r: PageBenchResult = {
      mode: synthetic ? `synthetic host at ${o.rate} steps/s` : 'real CPU trainer, CartPole, 32-32 network, batch 32, 500-step epochs',
      seconds: o.seconds,
      pings: rtts.length,
      roundTripMs: { p50: pct(rtts, 50), p95: pct(rtts, 95), max: Math.max(...rtts) },
      stopToIdleMs,
      stepsAtStop,
      framesApplied: before.frames,
      framesLost: before.framesLost,
      animationFramesPerSec: before.animationFrames / (before.sinceStartMs / 1000),
      longTasks: before.longTasks,
      longTaskMs: before.longTaskMs,
      memory,
      pageHeapSlopeMiBPerMin: slopePerMin(late.map((m) => ({ t: m.t_s, v: m.pageHeapMiB }))),
      hostRssSlopeMiBPerMin: slopePerMin(late.map((m) => ({ t: m.t_s, v: m.hostRssMiB }))),
    };
    print(r, o.json);
    return r;
  } finally {
    await browser.close();
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  startTime: number;
  endTime: number;
}

/** Prints the functions with the most self time in a CPU profile (to stderr). */
function printTopFunctions(p: CpuProfile): void {
  const hits = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const h = n.hitCount ?? 0;
    total += h;
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
    hits.set(key, (hits.get(key) ?? 0) + h);
  }
  const ms = (p.endTime - p.startTime) / 1000;
  console.error(`  page CPU profile, ${ms.toFixed(0)} ms, top self time:`);
  for (const [k, h] of [...hits].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.error(`    ${((h / total) * 100).toFixed(1).padStart(5)} %  ${k}`);
}

function print(r: PageBenchResult, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(r, null, 2));
    return;
  }
  const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  console.log(`dashboard page, ${r.mode}, ${r.seconds} s (${r.stepsAtStop.toLocaleString('en')} steps at the Stop click):`);
  console.log(`  round trip (page ping -> host pong -> page), ${r.pings} pings: p50 ${f(r.roundTripMs.p50)} ms, p95 ${f(r.roundTripMs.p95)} ms, max ${f(r.roundTripMs.max)} ms (target p95 < 100 ms)`);
  console.log(`  Stop click -> Idle shown: ${f(r.stopToIdleMs, 0)} ms (target < 1000 ms)`);
  console.log(`  frames: ${r.framesApplied} applied, ${r.framesLost} lost; page ${f(r.animationFramesPerSec)} animation frames/s, ${r.longTasks} long tasks (${f(r.longTaskMs, 0)} ms in all)`);
  console.log(`  memory (t s: page heap after GC MiB / DOM nodes / series MiB / host RSS MiB; machine load average):`);
  for (const m of r.memory) console.log(`    ${String(m.t_s).padStart(4)}: ${f(m.pageHeapMiB)} / ${m.domNodes} / ${f(m.seriesMiB, 2)} / ${f(m.hostRssMiB)}; load ${f(m.load1, 2)}`);
  if (Number.isFinite(r.pageHeapSlopeMiBPerMin)) console.log(`  growth after the first minute: page heap ${f(r.pageHeapSlopeMiBPerMin, 2)} MiB/min, host RSS ${f(r.hostRssSlopeMiBPerMin, 2)} MiB/min (target: flat)`);
  else console.log('  growth after the first minute: n/a (too few samples after the first minute: memory is sampled every 15 s: run for --seconds 90 or more)');
}
