// Collection benchmark of issue 24 item 7: env steps per second of the GPU collector (the
// acting forward, CartPole's step, the n-step rule and the counted replay insert, 100 vector
// steps per CUDA graph) at 16, 256, 4,096 and 65,536 environments, each part timed alone, beside
// the host path (CartPoleVecEnv, the CPU acting forward, the n-step rule, the replay insert from
// host memory) at the same sizes, through native/test/cuda/collect_cuda_tool.cpp; with --jax,
// then the JAX anchor (bench/jax_collect.py: jit + vmap + lax.scan, the PureJaxRL way) on the
// same GPU.
//   npm run bench -- collect --backend cuda [--jax]
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../main/trainer/paths.ts';
import { runCudaTool } from './cuda-tool.ts';

export const summary = 'env steps/s of the GPU collector beside the host path (--backend cuda), and the JAX anchor (--jax)';

function parseArgs(args: string[]): { jax: boolean } {
  const o = { backend: '', jax: false };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--backend' && args[i + 1] === 'cuda') o.backend = args[++i]!;
    else if (args[i] === '--jax') o.jax = true;
    else throw new Error(`unknown option '${args[i]}' (expected --backend cuda [--jax])`);
  }
  if (o.backend !== 'cuda') throw new Error('the collector benchmark measures the GPU collector: give --backend cuda (its host-path rows come in the same table)');
  return o;
}

/** Runs the collector's benchmark, then the JAX anchor when asked. */
export function run(args: string[]): void {
  const o = parseArgs(args);
  runCudaTool('collect_cuda_tool', ['bench']);
  if (!o.jax) return;
  const r = spawnSync('python3', [resolve(REPO_ROOT, 'bench', 'jax_collect.py')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`bench/jax_collect.py exited with ${r.status} (it needs python3 with JAX on a GPU)`);
}
