// Folders the trainer host uses: the repository root (presets, bundled data) and the runs folder.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository (or packaged app) root: two folders above main/trainer/. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Default parent folder of run directories: $DQN_RUNS_DIR or <root>/runs. */
export function defaultRunsDir(): string {
  return process.env.DQN_RUNS_DIR ?? resolve(REPO_ROOT, 'runs');
}
