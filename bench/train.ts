// Learner benchmark: gradient steps per second of the CPU learner (sample-free: one fixed random
// batch, so the number is forward + backward + Adam + target update), for the reference network
// of DESIGN section 4 (state_dim 51, 45 actions, dueling 256 x 256, batch 256); and the full
// CartPole trainer loop (env steps + replay + learner) with the cartpole preset.
//   npm run bench -- train [--steps 300] [--json]
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseRunConfig, type HeadsConfig } from '../common/config.ts';
import { learnerTesting } from '../native/learner_testing.ts';
import { createTrainer } from '../native/trainer.ts';
import { loadAddon } from '../native/addon.ts';
import { readScalars } from '../native/scalars.ts';

export const summary = 'CPU learner: gradient steps/s (reference net, no env) and CartPole trainer steps/s';

function parseArgs(args: string[]): { steps: number; json: boolean } {
  const o = { steps: 300, json: false };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json') o.json = true;
    else if (args[i] === '--steps') {
      o.steps = Number(args[++i]);
      if (!Number.isInteger(o.steps) || o.steps < 1) throw new Error(`--steps expects a positive integer, got '${args[i]}'`);
    } else throw new Error(`unknown option '${args[i]}' (expected --steps N, --json)`);
  }
  return o;
}

/** Gradient steps/s of the CPU learner on the reference network (51 -> 256 x 256 -> 45, dueling, batch 256) with the Q head or the given heads section. */
export function learnerStepsPerSecond(steps: number, heads?: HeadsConfig): number {
  const lt = learnerTesting();
  const d = 51, a = 45, b = 256;
  const net = { stateDim: d, nActions: a, hidden: [256, 256], dueling: true };
  const learner = new lt.Learner(heads ? { ...net, heads } : net,
    { lr: 2.5e-4, adamEps: 1e-8, gradClip: 10, batchSize: b, doubleDqn: true, huberDelta: 1, target: { kind: 'hard', interval: 1000 }, qStatsInterval: 100, causalInterval: 1000 }, 1);
  const rand = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898) * 0.5);
  const batch = {
    states: rand(b * d), nextStates: rand(b * d).reverse(), actions: Int32Array.from({ length: b }, (_, i) => i % a),
    rewards: rand(b), discounts: new Float32Array(b).fill(0.99), weights: new Float32Array(b).fill(1),
  };
  for (let i = 0; i < 10; i++) learner.step(batch); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) learner.step(batch);
  return steps / ((performance.now() - t0) / 1000);
}

async function trainerRates(steps: number): Promise<{ stepsPerSecond: number; envStepsPerSecond: number }> {
  const preset = fileURLToPath(new URL('../resources/presets/cartpole.json', import.meta.url));
  const trainer = createTrainer({ config: parseRunConfig(JSON.parse(readFileSync(preset, 'utf8'))), backend: 'cpu' });
  const envSteps = () => readScalars(trainer.scalars, loadAddon().scalarLayout).env_steps ?? 0;
  await trainer.run(1); // learning_starts happen here
  const e0 = envSteps();
  const t0 = performance.now();
  const r = await trainer.run(steps);
  const seconds = (performance.now() - t0) / 1000;
  return { stepsPerSecond: r.steps / seconds, envStepsPerSecond: (envSteps() - e0) / seconds };
}

/** Runs both measurements and prints them. */
export async function run(args: string[]): Promise<void> {
  const o = parseArgs(args);
  const gemm = learnerTesting().gemmBackend;
  const reference = learnerStepsPerSecond(o.steps);
  const cartpole = await trainerRates(o.steps * 20);
  const row = { gemm, referenceStepsPerSecond: reference, cartpoleStepsPerSecond: cartpole.stepsPerSecond, cartpoleEnvStepsPerSecond: cartpole.envStepsPerSecond };
  if (o.json) { console.log(JSON.stringify(row)); return; }
  console.log(`matrix products: ${gemm}`);
  console.log(`reference net 51 -> 256 -> 256 -> 45 (dueling), batch 256, learner only: ${reference.toFixed(1)} steps/s`);
  console.log(`cartpole preset, full trainer loop (env + replay + learner): ${row.cartpoleStepsPerSecond.toFixed(0)} steps/s, ${row.cartpoleEnvStepsPerSecond.toFixed(0)} env steps/s`);
}
