// Test helper: runs a headless CLI (main/cli/train.ts, evaluate.ts, sweep.ts) in a child process
// and parses the JSON summary on its last stdout line.
import { spawn, spawnSync } from 'node:child_process';
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

/**
 * `npm run train` sent `signal` (SIGINT: a Ctrl-C) once its stderr shows a line matching `when`
 * (a state of the run, never a time), then awaited: exit code, stderr and the parsed JSON
 * summary, as train() gives them. A CLI still running after `timeoutMs` is killed with SIGKILL.
 */
export function trainInterrupted(args: string[], when: RegExp, signal: NodeJS.Signals = 'SIGINT', timeoutMs = 600_000): Promise<ReturnType<typeof train> & { signalled: boolean }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(REPO_ROOT, 'main', 'cli', 'train.ts'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '', signalled = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (!signalled && stderr.split('\n').some((l) => when.test(l))) signalled = child.kill(signal);
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      done({ code, stdout, stderr, json: lastJson(stdout), signalled });
    }),
  );
}

/** The JSON object on the last line of `stdout`, or undefined when that line is not JSON. */
function lastJson(stdout: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function runCli(script: string, args: string[], env: NodeJS.ProcessEnv, wrapper: string[], timeoutMs: number) {
  const argv = [process.execPath, '--import', 'tsx', resolve(REPO_ROOT, 'main', 'cli', script), ...args];
  const r = spawnSync(wrapper[0] ?? argv[0]!, [...wrapper.slice(1), ...(wrapper.length ? argv : argv.slice(1))], { cwd: REPO_ROOT, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: lastJson(r.stdout) };
}
