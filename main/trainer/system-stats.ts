// System statistics for the dashboard's system panel (issue 16, item 6), sampled on the trainer
// host at most once per SYSTEM_PERIOD_MS: steps/s and env steps/s since the previous sample, the
// host process's CPU time and resident memory, the machine's CPU use, and the GPU readings from
// NVML (loaded by the addon at run time; where it is absent the sample says why). Every read is
// cheap: process.cpuUsage, process.memoryUsage.rss, os.cpus and a few NVML calls.
import { cpus } from 'node:os';
import { SYSTEM_PERIOD_MS, type SystemSample } from '../../common/protocol.ts';
import type { NativeAddon, NvmlReading } from '../../native/addon.ts';

/** CPU time counters at one instant: this process (µs) and the whole machine (ms, all cores). */
export interface CpuMark {
  atMs: number;
  processMicros: number;
  hostBusyMs: number;
  hostTotalMs: number;
}

/** The CPU counters now (monotonic `atMs` from performance.now()). */
export function cpuMark(atMs = performance.now()): CpuMark {
  const u = process.cpuUsage();
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  return { atMs, processMicros: u.user + u.system, hostBusyMs: busy, hostTotalMs: total };
}

/**
 * CPU use between two marks: the process's CPU time in percent of one core (above 100 when
 * several threads ran) and the machine's in percent of all its cores (0-100).
 */
export function cpuUse(a: CpuMark, b: CpuMark): { processCpuPercent: number; hostCpuPercent: number } {
  const wallMs = b.atMs - a.atMs;
  const processCpuPercent = wallMs > 0 ? Math.max(0, (b.processMicros - a.processMicros) / 1000 / wallMs) * 100 : 0;
  const dt = b.hostTotalMs - a.hostTotalMs;
  const hostCpuPercent = dt > 0 ? Math.min(100, Math.max(0, ((b.hostBusyMs - a.hostBusyMs) / dt) * 100)) : 0;
  return { processCpuPercent, hostCpuPercent };
}

/** Resident memory of this process in bytes (process.memoryUsage.rss: one cheap read, no heap walk). */
export function residentBytes(): number {
  return process.memoryUsage.rss();
}

/**
 * The NVML reader of an addon: a function that never throws. An addon without nvmlSample (an
 * older build, a test double) or a throwing one reads as absent, with the reason.
 */
export function nvmlReader(addon: Pick<NativeAddon, 'nvmlSample'>, deviceIndex = 0): () => NvmlReading {
  if (typeof addon.nvmlSample !== 'function') return () => ({ available: false, reason: 'the native addon has no NVML reader (rebuild it)' });
  return () => {
    try {
      return addon.nvmlSample!(deviceIndex);
    } catch (e) {
      return { available: false, reason: `NVML read failed: ${(e as Error).message}` };
    }
  };
}

/**
 * Takes a system sample when at least `periodMs` passed since the previous one. The first call
 * only sets the baseline (rates need two points) and returns undefined.
 */
export class SystemSampler {
  private prev: { cpu: CpuMark; step: number; envSteps: number; wall_s: number } | undefined;

  /**
   * @param readGpu NVML readings (see nvmlReader).
   * @param now monotonic clock in ms.
   */
  constructor(
    private readonly readGpu: () => NvmlReading,
    private readonly periodMs = SYSTEM_PERIOD_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A sample at (step, env steps, run wall seconds), or undefined when the last one is too recent. */
  sample(step: number, envSteps: number, wall_s: number): SystemSample | undefined {
    const t = this.now();
    const p = this.prev;
    if (p && t - p.cpu.atMs < this.periodMs) return undefined;
    const cpu = cpuMark(t);
    this.prev = { cpu, step, envSteps, wall_s };
    if (!p) return undefined;
    const dt = wall_s - p.wall_s;
    const rate = (d: number) => (dt > 0 ? Math.max(0, d) / dt : 0);
    const g = this.readGpu();
    return {
      step,
      env_steps: envSteps,
      wall_s,
      stepsPerSec: rate(step - p.step),
      envStepsPerSec: rate(envSteps - p.envSteps),
      ...cpuUse(p.cpu, cpu),
      rssBytes: residentBytes(),
      gpu: { ...g, reason: g.available ? '' : g.reason || 'NVML gave no reason' },
    };
  }
}
