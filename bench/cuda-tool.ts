// Runs one of the standalone CUDA tools (native/test/cuda/<tool>.cpp) for a benchmark: built
// here with CMake when missing (it needs nvcc and a configured build/native), output to the
// terminal. The tools need a CUDA GPU; bench/cuda-device.sh runs them on the H200.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../main/trainer/paths.ts';

/**
 * Runs build/native/<tool> with `args`, building it first when missing.
 * @throws Error when the build fails or the tool exits non-zero (with the reason to fix).
 */
export function runCudaTool(tool: string, args: string[]): void {
  const build = resolve(REPO_ROOT, 'build', 'native');
  const path = resolve(build, tool);
  if (!existsSync(path)) {
    const made = spawnSync('cmake', ['--build', build, '--target', tool], { stdio: 'inherit' });
    if (made.status !== 0) throw new Error(`could not build ${path} (it needs nvcc and a configured build/native: npm install)`);
  }
  const r = spawnSync(path, args, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} exited with ${r.status} (it needs a CUDA GPU)`);
}
