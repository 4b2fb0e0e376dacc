// Entry of the trainer host process: an Electron utility process (built by electron-vite as a
// second main input and started with utilityProcess.fork) or a Node child (browser mode, started
// with child_process.fork). It wires the real training session into the TrainerHost and serves
// it over whichever channel the process has. It must not import electron.
import { TrainerHost, type SessionApi } from './host.ts';
import { serveOverFork, serveOverParentPort, watchParentPid, type ParentPortLike } from './host-ports.ts';
import { clientDataDirs, defaultRunsDir } from './paths.ts';
import { metricsChunks, readRunConfig } from './run-dir.ts';
import { RunIndex } from './run-index.ts';
import { startRun } from './session.ts';

const runs = new RunIndex();
const session: SessionApi = { startRun: (opts, cb) => startRun(opts, cb), listRuns: (dir, fresh) => runs.list(dir, fresh), listGroups: (dir) => runs.groups(dir), readRunConfig, metricsChunks };
const parentPort = (process as unknown as { parentPort?: ParentPortLike }).parentPort;
const notify = (m: unknown) => (parentPort ? parentPort.postMessage(m) : process.send?.(m));
const host = new TrainerHost(session, { runsDir: defaultRunsDir(), dataDirs: clientDataDirs(), notifyParent: notify });
const exit = () => process.exit(0);

let shutdown: () => void;
if (parentPort) {
  shutdown = serveOverParentPort(host, parentPort, exit);
} else if (process.send) {
  shutdown = serveOverFork(host, process, exit);
} else {
  console.error('the trainer host must be started by Electron main (utilityProcess.fork) or the serve bridge (child_process.fork); for a terminal run use `npm run train`');
  process.exit(2);
}
// Ctrl-C in a terminal signals the whole process group, this host included: save the live run
// (stop-step checkpoint) and exit instead of dying with the group. The parent's own shutdown
// message, when it comes, joins the same sequence.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => {
    console.log(`trainer host: ${signal}: stopping the live run (checkpoint kept), then exiting`);
    shutdown();
  });
// A parent that dies without closing the channel (a crashed Electron main) re-parents this process.
watchParentPid(() => process.ppid, () => {
  console.log('trainer host: the parent process is gone: stopping the live run (checkpoint kept), then exiting');
  shutdown();
});
console.log(`trainer host pid ${process.pid} up, runs in ${defaultRunsDir()}, data from ${clientDataDirs().join(', ')}`);
