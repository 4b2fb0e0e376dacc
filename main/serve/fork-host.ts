// Starts a trainer host entry file as a Node child (browser mode and the dashboard benchmark):
// child_process.fork with an IPC channel, stdout and stderr piped for the supervisor's log, and
// tsx inherited from this process's exec arguments.
import { fork } from 'node:child_process';
import { describeExit, type HostProcess } from '../host-supervisor.ts';

/** Forks `entry` (a .ts file: main/trainer/host-entry.ts, or bench/synthetic-host.ts) with `env`, as a HostProcess. */
export function forkHostProcess(entry: string, env: NodeJS.ProcessEnv): HostProcess {
  const child = fork(entry, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env, serialization: 'advanced' });
  return {
    pid: child.pid ?? -1,
    stdout: child.stdout,
    stderr: child.stderr,
    postMessage: (m) => void (child.connected && child.send(m)),
    onMessage: (l) => void child.on('message', l),
    onExit: (l) => void child.once('exit', (code, signal) => l(describeExit(code, signal))),
    kill: () => void child.kill('SIGKILL'),
  };
}
