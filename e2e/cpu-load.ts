// A CPU-heavy load to run beside the end-to-end tests (issue 16, item 3): busy-looping Node
// processes, one per core by default, at normal priority, so the page, the trainer host and the
// browser compete for the cores as on a busy machine. Each worker exits on its own when its parent
// is gone (it checks its parent pid between bursts) or after `maxLifetimeMs`, so a crashed test
// leaves no spinning process behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export interface CpuLoad {
  readonly pids: number[];
  /** CPU seconds (user + system) each worker has used so far (from /proc/PID/stat). */
  cpuSeconds(): number[];
  /** Kills the workers and resolves once every one has exited. */
  stop(): Promise<void>;
}

/** Clock ticks per second of /proc/PID/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** User + system CPU seconds of process `pid`, or NaN when it is gone or not on Linux. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) : state is field 3, utime 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / USER_HZ;
  } catch {
    return NaN;
  }
}

const WORKER = `
const parent = process.ppid;
const until = Date.now() + Number(process.argv[1]);
let x = 0;
for (;;) {
  for (let i = 0; i < 2e7; i++) x = (x * 1103515245 + 12345) | 0;
  if (process.ppid !== parent || Date.now() > until) process.exit(0);
}
`;

/**
 * Starts `workers` busy processes (default: one per core).
 * @throws RangeError when workers is not a positive integer.
 */
export function startCpuLoad(workers = availableParallelism(), maxLifetimeMs = 20 * 60_000): CpuLoad {
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
  const children: ChildProcess[] = [];
  for (let k = 0; k < workers; k++) children.push(spawn(process.execPath, ['-e', WORKER, String(maxLifetimeMs)], { stdio: 'ignore' }));
  return {
    pids: children.map((c) => c.pid ?? -1),
    cpuSeconds: () => children.map((c) => processCpuSeconds(c.pid ?? -1)),
    stop: async () => {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}

/** Parses DQN_E2E_CPU_LOAD of `env` (a worker count; absent or 0: no load). @throws Error for anything else. */
export function loadFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.DQN_E2E_CPU_LOAD;
  if (value === undefined || value === '' || value === '0') return 0;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`DQN_E2E_CPU_LOAD must be a number of busy processes (e.g. 2), got '${value}'`);
  return n;
}
