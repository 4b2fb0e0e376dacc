// Folders the trainer host uses: the repository root (presets, bundled data), the runs folder
// and the data folders its clients may read.
import { delimiter, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository (or packaged app) root: two folders above main/trainer/. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Default parent folder of run directories: $DQN_RUNS_DIR or <root>/runs. */
export function defaultRunsDir(): string {
  return process.env.DQN_RUNS_DIR ?? resolve(REPO_ROOT, 'runs');
}

/** The bundled trading data (resources/data): a client may always train on it. */
export const BUNDLED_DATA_DIR = resolve(REPO_ROOT, 'resources', 'data');

/**
 * Folders a client's `env.data` may name: the bundled data plus those the front end lists in
 * $DQN_DATA_DIRS (separated by the platform's path delimiter; the serve CLI and Electron main set it).
 */
export function clientDataDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = (env.DQN_DATA_DIRS ?? '').split(delimiter).filter((d) => d !== '');
  return [BUNDLED_DATA_DIR, ...extra.map((d) => resolve(d))];
}
