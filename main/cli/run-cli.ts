// Test helper: runs the headless CLI (main/cli/train.ts) in a child process and parses the JSON
// summary on its last stdout line.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../trainer/paths.ts';

const CLI = resolve(REPO_ROOT, 'main', 'cli', 'train.ts');

/** Exit code, stderr and the parsed JSON summary (undefined when the last line is not JSON). */
export function train(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 600_000, env });
  const lines = r.stdout.trim().split('\n');
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(lines.at(-1) ?? '') as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { code: r.status, stderr: r.stderr, json };
}
