// Electron main: kept thin. One sandboxed window loading the renderer from app://dqn/ (never
// file://), no navigation, new windows or webviews anywhere, the app menu, presets and the host
// restart behind checked IPC handlers, and the trainer host in a utility process (supervised:
// restarted when it dies or stops answering heartbeats, the reason shown in the dashboard). A
// MessageChannelMain joins the window and the host directly. Closing the window stops the run
// cleanly (checkpoint kept) before the app quits. The fuses a packaged app flips are set by
// scripts/package.ts.
import { app, BrowserWindow, ipcMain, Menu, MessageChannelMain, protocol, session, utilityProcess, type IpcMainInvokeEvent, type MessagePortMain } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMessage, PresetRequestSchema } from '../common/protocol.ts';
import { APP_PAGE_URL, APP_SCHEME_PRIVILEGES, handleAppProtocol } from './app-protocol.ts';
import { guardContents } from './contents-guard.ts';
import { HostSupervisor, type HostProcess } from './host-supervisor.ts';
import { PresetStore } from './presets-store.ts';

const here = dirname(fileURLToPath(import.meta.url)); // out/main
const RENDERER_DIR = join(here, '..', 'renderer');
const PRELOAD = join(here, '..', 'preload', 'index.cjs');
const HOST_ENTRY = join(here, 'host.js');
const SERVICE_NAME = 'DQN trainer host';

if (process.env.DQN_USER_DATA) app.setPath('userData', process.env.DQN_USER_DATA);
app.enableSandbox();
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]); // before ready, as Electron requires

let win: BrowserWindow | undefined;
let quitting = false;
/** Details Electron gives about the last utility process that ended (reason, exit code). */
let lastGone: { reason: string; exitCode: number } | undefined;

function spawnHost(): HostProcess {
  const root = app.getAppPath();
  const child = utilityProcess.fork(HOST_ENTRY, [], {
    serviceName: SERVICE_NAME,
    stdio: 'pipe',
    env: {
      ...process.env,
      DQN_ADDON_PATH: process.env.DQN_ADDON_PATH ?? join(root, 'build', 'native', 'Release', 'dqn_native.node'),
      // The renderer may train on resources/data and <userData>/data only (not the whole profile,
      // which holds Chromium's own files): see main/trainer/paths-policy.ts.
      DQN_DATA_DIRS: join(app.getPath('userData'), 'data'),
    },
  });
  const ready = new Promise<void>((resolve) => child.once('spawn', () => resolve()));
  let pid = -1;
  void ready.then(() => (pid = child.pid ?? -1));
  return {
    get pid() {
      return pid;
    },
    ready,
    stdout: child.stdout,
    stderr: child.stderr,
    postMessage: (m, transfer) => child.postMessage(m, transfer as MessagePortMain[] | undefined),
    onMessage: (l) => void child.on('message', l),
    onExit: (l) =>
      void child.once('exit', (code) => {
        // 'child-process-gone' (with the reason) and 'exit' come in either order: wait a moment.
        setTimeout(() => {
          const gone = lastGone;
          lastGone = undefined;
          l(gone && gone.reason !== 'clean-exit' ? `${gone.reason.replace(/-/g, ' ')} (exit code ${gone.exitCode})` : code === 0 ? 'exited normally (code 0)' : `exited with code ${code}`);
        }, 100);
      }),
    kill: () => void child.kill(),
  };
}

const supervisor = new HostSupervisor({
  spawn: spawnHost,
  logDir: join(app.getPath('userData'), 'logs'),
  notify: (m) => win?.webContents.send('trainer:supervisor', m),
  onSpawn: () => connectWindow(),
});

/** Gives the window and the live host the two ends of a fresh MessageChannel. */
function connectWindow(): void {
  const child = supervisor.current;
  if (!child || !win || win.webContents.isLoading()) return;
  const { port1, port2 } = new MessageChannelMain();
  child.postMessage({ type: 'connect' }, [port1]);
  win.webContents.postMessage('trainer:port', null, [port2]);
}

/** Only our own page in our own window may call main. */
function checkSender(e: IpcMainInvokeEvent): void {
  if (!win || e.sender.id !== win.webContents.id || e.senderFrame?.url !== APP_PAGE_URL) throw new Error(`refused IPC from ${e.senderFrame?.url ?? 'an unknown frame'}`);
}

function createWindow(): void {
  win = new BrowserWindow({
    width: 1500,
    height: 950,
    backgroundColor: '#12151c',
    title: 'DQN Console',
    webPreferences: { preload: PRELOAD, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: false },
  });
  win.webContents.on('did-finish-load', connectWindow);
  // A crashed or killed dashboard is reloaded: the run goes on in the trainer host, and the new
  // page gets a fresh port and the run's history (liveHistory), so nothing is lost.
  win.webContents.on('render-process-gone', (_e, details) => {
    if (quitting || details.reason === 'clean-exit') return;
    console.error(`the dashboard's renderer is gone (${details.reason}, exit code ${details.exitCode}): reloading it; the run goes on`);
    win?.webContents.reload();
  });
  win.on('close', (e) => {
    if (quitting) return;
    e.preventDefault();
    quitting = true;
    void supervisor.shutdown().finally(() => {
      win?.destroy();
      app.quit();
    });
  });
  void win.loadURL(APP_PAGE_URL);
}

app.on('web-contents-created', (_e, contents) => guardContents(contents, (what, url) => console.warn(`refused ${what} to ${url || 'an unknown URL'}`)));

app.on('child-process-gone', (_e, details) => {
  if (details.type === 'Utility' && details.serviceName === SERVICE_NAME) lastGone = { reason: details.reason, exitCode: details.exitCode };
});

app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  handleAppProtocol(protocol, RENDERER_DIR);
  const presets = new PresetStore(join(app.getPath('userData'), 'presets'));
  ipcMain.handle('presets', (e, request: unknown) => {
    checkSender(e);
    return presets.handle(parseMessage(PresetRequestSchema, request, 'presets'));
  });
  // The dashboard's Restart button, after the supervisor gave up restarting the host.
  ipcMain.handle('trainer:restart', (e) => {
    checkSender(e);
    supervisor.restart();
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate([{ role: 'fileMenu' }, { role: 'editMenu' }, { role: 'viewMenu' }, { role: 'windowMenu' }]));
  supervisor.start();
  createWindow();
});

app.on('window-all-closed', () => app.quit());
