// `npm run serve [-- --host 127.0.0.1 --port 8787]`: browser mode. Builds the renderer if
// needed, starts the trainer host under Node (supervised, restarted when it dies), serves the
// dashboard and bridges its messages over a WebSocket. Prints the URL with a random token;
// connections without the token are refused. Binds to loopback unless told otherwise.
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import type { HostProcess } from '../host-supervisor.ts';
import { makeFolder } from '../trainer/folders.ts';
import { PresetStore } from '../presets-store.ts';
import { forkHostProcess } from './fork-host.ts';
import { ensureRendererBuilt } from './renderer-build.ts';
import { startBridgeServer } from './server.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const HOST_ENTRY = join(ROOT, 'main', 'trainer', 'host-entry.ts');

const port = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port number 0-65535 (0 picks a free one)');
  return n;
};

/**
 * The --host value: any address or name but a wildcard. The page answers only to the name it
 * serves (Host header, against DNS rebinding), and no browser sends 0.0.0.0 or [::] as one, so a
 * wildcard would serve no one.
 */
const bindAddress = (v: string) => {
  if (/^(0\.0\.0\.0|\[?::\]?|\[?(0{1,4}:){7}0{1,4}\]?)$/.test(v))
    throw new InvalidArgumentError(`'${v}' listens on every interface, but the page answers only to the address it serves (the Host header), and browsers never send this one: pass the address or name they will use, e.g. --host 192.0.2.10 or --host gpu-box.lan (or keep loopback and forward the port over SSH)`);
  return v;
};

/** Starts host-entry.ts under Node (tsx, inherited from this process's exec arguments). */
export function forkHost(env: NodeJS.ProcessEnv): HostProcess {
  return forkHostProcess(HOST_ENTRY, env);
}

async function main(): Promise<void> {
  const defaultData = process.env.XDG_CONFIG_HOME ? join(process.env.XDG_CONFIG_HOME, 'dqn-console') : join(homedir(), '.config', 'dqn-console');
  const opts = new Command('serve')
    .description('serve the DQN Console dashboard to a browser')
    .option('--host <address>', 'address to bind (loopback by default; anything else exposes the trainer to the network); the page answers only to this name (Host header), or to any loopback name when it is one; not a wildcard such as 0.0.0.0', bindAddress, '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', port, 8787)
    .option('--data-dir <dir>', 'user data: saved presets, the host log, and CSV files the dashboard may train on (besides resources/data)', defaultData)
    .option('--runs-dir <dir>', 'parent folder of run directories (default: $DQN_RUNS_DIR or <repo>/runs)')
    .option('--no-build', 'do not rebuild the renderer even if its sources changed')
    .parse()
    .opts<{ host: string; port: number; dataDir: string; runsDir?: string; build: boolean }>();

  makeFolder(opts.dataDir); // the host log goes there from the start: refuse a folder that cannot be made now
  if (opts.build) await ensureRendererBuilt(ROOT);
  // The browser is a client: env.data must lie in resources/data or the data folder (paths-policy.ts).
  const env = { ...process.env, DQN_DATA_DIRS: resolve(opts.dataDir), ...(opts.runsDir ? { DQN_RUNS_DIR: resolve(opts.runsDir) } : {}) };
  const server = await startBridgeServer({
    host: opts.host,
    port: opts.port,
    token: randomBytes(18).toString('base64url'),
    staticDir: join(ROOT, 'out', 'renderer'),
    presets: new PresetStore(join(opts.dataDir, 'presets')),
    spawnHost: () => forkHost(env),
    logDir: join(opts.dataDir, 'logs'),
  }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EADDRINUSE') throw new Error(`port ${opts.port} on ${opts.host} is in use: pass --port N (or stop the other server)`);
    throw e;
  });
  if (!['127.0.0.1', '::1', 'localhost'].includes(opts.host)) console.warn(`warning: listening on ${opts.host}, not loopback: anyone who can reach it and has the token controls training`);
  console.log(`DQN Console: ${server.url}`);
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    console.log('stopping (a live run, if any, keeps a checkpoint)...');
    server.close().then(() => process.exit(0), (e: Error) => (console.error(e.message), process.exit(1)));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: Error) => {
  console.error(`serve: ${e.message}`);
  process.exit(1);
});
