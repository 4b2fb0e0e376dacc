// Test helper: runs a headless CLI (main/cli/train.ts, evaluate.ts, sweep.ts) in a child process
// and parses the JSON summary on its last stdout line.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../trainer/paths.ts';

/**
 * `npm run train`: exit code, stderr and the parsed JSON summary (undefined when the last line is
 * not JSON). `wrapper` is a command line that runs node (e.g. `setpriv` options to run as another
 * user). A CLI still running after `timeoutMs` is killed with SIGKILL (code null; a CLI stuck in
 * a synchronous call never runs its SIGTERM handler).
 */
export function train(args: string[], env: NodeJS.ProcessEnv = process.env, wrapper: string[] = [], timeoutMs = 600_000) {
  return runCli('train.ts', args, env, wrapper, timeoutMs);
}

/** `npm run evaluate`, as train() runs `npm run train`. */
export function evaluate(args: string[]) {
  return runCli('evaluate.ts', args, process.env, [], 600_000);
}

/** `npm run sweep`, as train() runs `npm run train`. */
export function sweep(args: string[]) {
  return runCli('sweep.ts', args, process.env, [], 600_000);
}

function runCli(script: string, args: string[], env: NodeJS.ProcessEnv, wrapper: string[], timeoutMs: number) {
  const argv = [process.execPath, '--import', 'tsx', resolve(REPO_ROOT, 'main', 'cli', script), ...args];
  const r = spawnSync(wrapper[0] ?? argv[0]!, [...wrapper.slice(1), ...(wrapper.length ? argv : argv.slice(1))], { cwd: REPO_ROOT, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL', env });
  const lines = r.stdout.trim().split('\n');
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(lines.at(-1) ?? '') as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
}
