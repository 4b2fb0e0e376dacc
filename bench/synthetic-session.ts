// A synthetic training session for the dashboard benchmark: it reports what a real CartPole run
// reports (a scalar-block read every 200 ms, finished episodes after each chunk of steps, an epoch
// summary and a checkpoint event every `stepsPerEpoch` steps, a metrics flush every 2 s), at a
// chosen rate of gradient steps per second, without training anything. So the streaming path
// (trainer host, frames, WebSocket bridge, page) can be driven at rates no CPU trainer reaches.
import type { RunConfig } from '../common/config.ts';
import type { SessionApi } from '../main/trainer/host.ts';
import type { RunCallbacks, RunHandle, RunOutcome, StartOptions } from '../main/trainer/session-api.ts';

export interface SyntheticOptions {
  /** Gradient steps per second (> 0). */
  stepsPerSec: number;
  /** Steps per epoch (default 500, the "500-step epochs"). */
  stepsPerEpoch?: number;
  /** Env steps per gradient step (default 1). */
  envStepsPerStep?: number;
  /** How often a chunk of steps is reported, ms (default 20: 50 chunks per second). */
  chunkMs?: number;
}

const SCALAR_PERIOD_MS = 200;
const FLUSH_MS = 2000;

/** Deterministic pseudo-random numbers in [0, 1) (an LCG: enough for made-up episode lengths). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/**
 * A SessionApi whose runs make up records at `stepsPerSec`; stop() ends a run at once (as a real
 * stop after its current chunk). The run folder is a name only: nothing is written to disk.
 * @throws RangeError for a non-positive rate.
 */
export function syntheticSession(o: SyntheticOptions): SessionApi & { runs: number } {
  if (!(o.stepsPerSec > 0)) throw new RangeError(`stepsPerSec must be > 0, got ${o.stepsPerSec}`);
  const spe = o.stepsPerEpoch ?? 500;
  const envPerStep = o.envStepsPerStep ?? 1;
  const chunkMs = o.chunkMs ?? 20;
  const api = {
    runs: 0,
    async startRun(_opts: StartOptions, cb: RunCallbacks): Promise<RunHandle> {
      const runDir = `/synthetic/run-${++api.runs}`;
      const rnd = lcg(api.runs);
      const t0 = performance.now();
      let step = 0;
      let envSteps = 0;
      let epoch = 0;
      let nextEpisodeEnd = 20;
      let lastScalar = 0;
      let lastFlush = 0;
      let stopped = false;
      let finish!: (o: RunOutcome) => void;
      const done = new Promise<RunOutcome>((r) => (finish = r));
      const wall = () => (performance.now() - t0) / 1000;
      const chunk = () => {
        const target = Math.floor(wall() * o.stepsPerSec);
        const eps: { step: number; value: number }[] = [];
        while (step < target) {
          const next = Math.min(target, (epoch + 1) * spe);
          envSteps += (next - step) * envPerStep;
          step = next;
          while (nextEpisodeEnd <= envSteps) {
            const len = 10 + Math.floor(rnd() * Math.min(490, 10 + step / 200));
            eps.push({ step: nextEpisodeEnd, value: len });
            nextEpisodeEnd += len;
          }
          if (step === (epoch + 1) * spe) {
            epoch++;
            cb.onEpoch?.({ epoch, step, env_steps: envSteps, epoch_time_s: spe / o.stepsPerSec * (0.8 + 0.4 * rnd()), steps_per_s: o.stepsPerSec, eval_mean_return: 20 + 480 * (1 - Math.exp(-step / 2e6)), eval_episodes: 1, eval_metrics: {} });
            if (epoch % 10 === 0) cb.onEvent?.({ time: new Date().toISOString(), kind: 'checkpoint', message: `wrote ${runDir}/checkpoints/epoch-${epoch}` });
          }
        }
        if (eps.length) cb.onEpisodes?.(eps);
        const now = performance.now();
        if (now - lastScalar >= SCALAR_PERIOD_MS) {
          lastScalar = now;
          const x = step / 1e5;
          cb.onScalars?.([{ step, wall_s: wall(), values: { 'losses/td_loss': Math.exp(-x) * (0.5 + rnd()), 'losses/td_mse': Math.exp(-x), 'losses/grad_norm': 1 + rnd(), 'q/mean': 10 * (1 - Math.exp(-x)), 'q/min': -rnd(), 'q/max': 20 + rnd(), 'q/var': 1, 'q/mean_max': 11, 'replay/total_priority': 900 + rnd(), 'replay/max_priority': 10, 'replay/is_weight_mean': 0.1, 'replay/beta': 0.4 + 0.6 * Math.min(1, x), 'charts/epsilon': Math.max(0.05, 1 - x) } }]);
        }
        if (now - lastFlush >= FLUSH_MS) {
          lastFlush = now;
          cb.onFlushed?.();
        }
      };
      const timer = setInterval(chunk, chunkMs);
      cb.onBackends?.({ compute: { backend: 'cpu', reason: 'synthetic benchmark session' }, replay: { backend: 'cpu', reason: '' } });
      cb.onState?.('running');
      const end = (state: RunOutcome['state']) => {
        clearInterval(timer);
        cb.onFlushed?.();
        cb.onState?.('idle');
        finish({ state, steps: step, env_steps: envSteps, wall_s: wall() });
      };
      return {
        runDir,
        done,
        async stop() {
          if (stopped) return done.then(() => undefined);
          stopped = true;
          cb.onState?.('stopping');
          end('stopped');
          await done;
        },
      };
    },
    listRuns: async () => [],
    readRunConfig(runDir: string): RunConfig {
      throw new Error(`${runDir}: the synthetic session keeps no run folders`);
    },
    metricsChunks: async function* () {},
  };
  return api;
}
