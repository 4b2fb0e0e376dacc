// A stand-in for the `electron` module, so main/index.ts runs under plain Node in a test (tests
// never import electron): main/index.test.ts maps the specifier `electron` here with a module
// resolve hook. Every call main makes is recorded in `calls` (in order), and the objects it
// creates are kept so the test can drive them (emit events, call IPC handlers).
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** Every call main made, in order: [name, ...arguments]. */
export const calls: [string, ...unknown[]][] = [];
const record = (name: string, ...args: unknown[]) => void calls.push([name, ...args]);

let markReady!: () => void;
const ready = new Promise<void>((r) => (markReady = r));
const userData = mkdtempSync(`${tmpdir()}/dqn-fake-electron-`);

class FakeApp extends EventEmitter {
  isReady = false;
  setPath(name: string, path: string) {
    record('app.setPath', name, path);
  }
  getPath(name: string) {
    return name === 'userData' ? userData : tmpdir();
  }
  getAppPath() {
    return process.cwd();
  }
  enableSandbox() {
    record('app.enableSandbox');
  }
  whenReady() {
    return ready;
  }
  quit() {
    record('app.quit');
  }
}
export const app = new FakeApp();

/** Makes the app ready (main's whenReady callbacks run). */
export function becomeReady(): void {
  app.isReady = true;
  record('ready');
  markReady();
}

/** A webContents: events, the window-open handler, and what was sent to the page. */
export class FakeWebContents extends EventEmitter {
  static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  openHandler: ((d: { url: string }) => unknown) | undefined;
  sent: unknown[] = [];
  setWindowOpenHandler(h: (d: { url: string }) => unknown) {
    this.openHandler = h;
  }
  reloads = 0;
  isLoading() {
    return false;
  }
  reload() {
    this.reloads++;
    record('webContents.reload');
  }
  send(channel: string, message: unknown) {
    this.sent.push([channel, message]);
  }
  postMessage(channel: string, message: unknown) {
    this.sent.push([channel, message]);
  }
}

export const windows: FakeBrowserWindow[] = [];
export class FakeBrowserWindow extends EventEmitter {
  readonly webContents = new FakeWebContents();
  constructor(readonly options: Record<string, unknown>) {
    super();
    windows.push(this);
    record('new BrowserWindow', options);
    app.emit('web-contents-created', {}, this.webContents);
  }
  loadURL(url: string) {
    record('win.loadURL', url);
    return Promise.resolve();
  }
  loadFile(path: string) {
    record('win.loadFile', path);
    return Promise.resolve();
  }
  destroy() {}
}
export { FakeBrowserWindow as BrowserWindow };

/** IPC handlers main registered, by channel. */
export const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
export const ipcMain = {
  handle(channel: string, handler: (event: unknown, ...args: unknown[]) => unknown) {
    record('ipcMain.handle', channel);
    ipcHandlers.set(channel, handler);
  },
  on(channel: string) {
    record('ipcMain.on', channel);
  },
};

/** Protocol handlers main registered, by scheme. */
export const protocolHandlers = new Map<string, (request: Request) => Response | Promise<Response>>();
export const protocol = {
  registerSchemesAsPrivileged(schemes: unknown) {
    record('protocol.registerSchemesAsPrivileged', schemes, app.isReady);
  },
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>) {
    record('protocol.handle', scheme);
    protocolHandlers.set(scheme, handler);
  },
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler: () => record('session.setPermissionRequestHandler'),
    setPermissionCheckHandler: () => record('session.setPermissionCheckHandler'),
  },
};

export const Menu = { setApplicationMenu: () => undefined, buildFromTemplate: (t: unknown) => t };

export class MessageChannelMain {
  port1 = { kind: 'port1' };
  port2 = { kind: 'port2' };
}

/** Utility processes main forked: the path, the options, and the fake child. */
export const forked: { path: string; options: Record<string, unknown>; child: EventEmitter & { posted: unknown[] } }[] = [];
export const utilityProcess = {
  fork(path: string, _args: string[], options: Record<string, unknown>) {
    record('utilityProcess.fork', path);
    const child = Object.assign(new EventEmitter(), {
      pid: 4242 + forked.length,
      stdout: null,
      stderr: null,
      posted: [] as unknown[],
      postMessage(m: unknown) {
        this.posted.push(m);
      },
      kill() {
        record('child.kill');
      },
    });
    forked.push({ path, options, child });
    setImmediate(() => child.emit('spawn'));
    return child;
  },
};
