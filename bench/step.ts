// Training-step benchmark of DESIGN section 4 / issue 18: gradient steps per second of the
// reference network (state_dim 51, dueling 256 x 256, 45 actions) with PER.
//   npm run bench -- step [--backend cpu|cuda]
// cpu: the CPU learner on a fixed batch (bench/train.ts's measurement). cuda: the CUDA learner
// with the GPU replay at capacity 1e6, batch 256 and 1024, TF32 / BF16 / FP32, eager and
// graph-replayed, through the standalone tool native/test/cuda/learner_cuda_tool.cpp (built here
// with CMake when missing; it needs nvcc and runs only where a GPU is). The PyTorch rows of the
// same workload come from bench/torch_dqn_step.py; bench/cuda-device.sh runs both on the H200.
import { HeadsSchema } from '../common/config.ts';
import { runCudaTool } from './cuda-tool.ts';
import { learnerStepsPerSecond } from './train.ts';

/** The head configurations the CPU rows cover (issue 23 item 8), each timed over `steps` steps. */
const HEAD_CONFIGS = [
  { name: 'Q head (plain DQN)', heads: {}, steps: 300 },
  { name: 'C51 (51 atoms)', heads: { main: 'c51' }, steps: 40 },
  { name: 'IQN (N = N\' = 8, K = 32, embedding 64)', heads: { main: 'iqn' }, steps: 40 },
  { name: 'Q + CQL (alpha 0.1)', heads: { cql: { alpha: 0.1 } }, steps: 200 },
  { name: 'Q + ensemble of 4', heads: { ensemble: { heads: 4 } }, steps: 100 },
  { name: 'Q + spectral normalisation (trunk)', heads: { spectral: { sigma_max: 1 } }, steps: 200 },
  { name: 'trading-6e-full stack (C51 + IQN + 4 heads + CQL + SN)', heads: { main: 'c51', iqn: { auxiliary: true }, ensemble: { heads: 4 }, cql: { alpha: 0.1 }, spectral: { sigma_max: 1 } }, steps: 20 },
] as const;

export const summary = 'training steps/s of the reference net: --backend cpu (CPU learner, each head configuration) or cuda (GPU learner + GPU PER at 1e6)';

function parseArgs(args: string[]): { backend: 'cpu' | 'cuda' } {
  const o = { backend: 'cpu' as 'cpu' | 'cuda' };
  for (let i = 0; i < args.length; i++) {
    const v = args[i + 1];
    if (args[i] === '--backend' && (v === 'cpu' || v === 'cuda')) {
      o.backend = v;
      i++;
    } else throw new Error(`unknown option '${args[i]}' (expected --backend cpu|cuda)`);
  }
  return o;
}

/** Runs the measurement of the chosen backend and prints its table. */
export function run(args: string[]): void {
  const o = parseArgs(args);
  if (o.backend === 'cpu') {
    console.log('reference net 51 -> 256 -> 256 -> 45 (dueling), batch 256, CPU learner, by head configuration:');
    for (const c of HEAD_CONFIGS) {
      const rate = learnerStepsPerSecond(c.steps, HeadsSchema.parse(c.heads));
      console.log(`  ${c.name.padEnd(58)} ${rate.toFixed(1).padStart(8)} steps/s`);
    }
    return;
  }
  runCudaTool('learner_cuda_tool', ['bench']);
}
