// Entry of the trainer host process: an Electron utility process (built by electron-vite as a
// second main input and started with utilityProcess.fork) or a Node child (browser mode, started
// with child_process.fork). It wires the real training session into the TrainerHost and serves
// it over whichever channel the process has. It must not import electron.
import { TrainerHost, type SessionApi } from './host.ts';
import { serveOverFork, serveOverParentPort, type ParentPortLike } from './host-ports.ts';
import { clientDataDirs, defaultRunsDir } from './paths.ts';
import { listRuns, readRunConfig, readRunMetrics } from './run-dir.ts';
import { startRun } from './session.ts';

const session: SessionApi = { startRun: (opts, cb) => startRun(opts, cb), listRuns, readRunConfig, readRunMetrics };
const parentPort = (process as unknown as { parentPort?: ParentPortLike }).parentPort;
const notify = (m: unknown) => (parentPort ? parentPort.postMessage(m) : process.send?.(m));
const host = new TrainerHost(session, { runsDir: defaultRunsDir(), dataDirs: clientDataDirs(), notifyParent: notify });
const exit = () => process.exit(0);

if (parentPort) {
  serveOverParentPort(host, parentPort, exit);
} else if (process.send) {
  serveOverFork(host, process, exit);
} else {
  console.error('the trainer host must be started by Electron main (utilityProcess.fork) or the serve bridge (child_process.fork); for a terminal run use `npm run train`');
  process.exit(2);
}
console.log(`trainer host pid ${process.pid} up, runs in ${defaultRunsDir()}, data from ${clientDataDirs().join(', ')}`);
