// Electron main (main/index.ts) under plain Node with `electron` replaced by main/testing/
// fake-electron.ts through a module resolve hook (tests never import electron): the app scheme
// is privileged before ready and served after, the window is sandboxed and loads app://dqn/,
// navigation and new windows are refused, IPC from another frame is refused, the trainer host
// is forked with its data folder, and closing the window shuts the host down before quitting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { join } from 'node:path';

const FAKE = new URL('./testing/fake-electron.ts', import.meta.url).href;
register(`data:text/javascript,${encodeURIComponent(`export async function resolve(s, c, next) { return s === 'electron' ? { url: ${JSON.stringify(FAKE)}, shortCircuit: true } : next(s, c); }`)}`);

type Fake = typeof import('./testing/fake-electron.ts');

async function until(check: () => boolean, what: string): Promise<void> {
  for (let t0 = Date.now(); !check(); await new Promise((r) => setTimeout(r, 5))) if (Date.now() - t0 > 10_000) throw new Error(`timed out waiting for ${what}`);
}

test('Electron main: app:// page in a sandboxed window, no navigation, checked IPC, supervised host, clean quit', async () => {
  const fake = (await import(FAKE)) as Fake;
  await import('./index.ts');
  const names = () => fake.calls.map((c) => c[0]);
  const privileged = fake.calls.find((c) => c[0] === 'protocol.registerSchemesAsPrivileged')!;
  assert.deepEqual(privileged.slice(1), [[{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }], false], 'registered before ready');
  fake.becomeReady();
  await until(() => fake.windows.length === 1 && fake.forked.length === 1, 'the window and the host');

  // The renderer comes from app://, never file://.
  assert.ok(names().indexOf('protocol.handle') < names().indexOf('win.loadURL'), 'the scheme is served before the page loads');
  assert.deepEqual(fake.calls.filter((c) => c[0] === 'win.loadURL' || c[0] === 'win.loadFile'), [['win.loadURL', 'app://dqn/index.html']]);
  assert.equal((await fake.protocolHandlers.get('app')!(new Request('app://elsewhere/index.html'))).status, 403);
  const prefs = fake.windows[0]!.options.webPreferences as Record<string, unknown>;
  assert.deepEqual([prefs.sandbox, prefs.contextIsolation, prefs.nodeIntegration], [true, true, false]);

  // No navigation of the page or its frames, no new windows.
  const wc = fake.windows[0]!.webContents;
  for (const name of ['will-navigate', 'will-frame-navigate', 'will-redirect', 'will-attach-webview']) {
    let prevented = false;
    wc.emit(name, { url: 'https://evil.example/', preventDefault: () => void (prevented = true) });
    assert.equal(prevented, true, name);
  }
  assert.deepEqual(wc.openHandler!({ url: 'https://evil.example/' }), { action: 'deny' });

  // IPC only from our page in our window.
  const from = (url: string, id = wc.id) => ({ sender: { id }, senderFrame: { url } });
  for (const channel of ['presets', 'trainer:restart']) {
    assert.throws(() => fake.ipcHandlers.get(channel)!(from('file:///tmp/evil.html'), { op: 'list' }), { message: 'refused IPC from file:///tmp/evil.html' }, channel);
    assert.throws(() => fake.ipcHandlers.get(channel)!(from(APP_PAGE, wc.id + 1), { op: 'list' }), /refused IPC/, `${channel} from another window`);
  }
  assert.ok(Array.isArray(fake.ipcHandlers.get('presets')!(from(APP_PAGE), { op: 'list' })), 'our page lists presets');
  fake.ipcHandlers.get('trainer:restart')!(from(APP_PAGE));
  assert.equal(fake.forked.length, 1, 'a restart while the host runs starts no second one');

  // The trainer host: a utility process with the data folder the renderer may use; the window gets a port.
  const host = fake.forked[0]!;
  assert.match(host.path, /host\.js$/);
  assert.equal((host.options.env as Record<string, string>).DQN_DATA_DIRS, join(fake.app.getPath('userData'), 'data'));
  await until(() => host.child.posted.some((m) => (m as { type: string }).type === 'connect'), 'the renderer port to reach the host');

  // A dead renderer is reloaded and gets a new port; the host (and its run) is left alone.
  const ports = () => wc.sent.filter((s) => (s as unknown[])[0] === 'trainer:port').length;
  const portsBefore = ports();
  wc.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
  assert.equal(wc.reloads, 1);
  wc.emit('did-finish-load');
  assert.equal(ports(), portsBefore + 1, 'the reloaded page is connected to the same host');
  assert.equal(host.child.posted.some((m) => (m as { type: string }).type === 'shutdown'), false, 'the run goes on');

  // Closing the window stops the host (its run keeps a checkpoint) before the app quits.
  let closePrevented = false;
  fake.windows[0]!.emit('close', { preventDefault: () => void (closePrevented = true) });
  assert.equal(closePrevented, true);
  await until(() => host.child.posted.some((m) => (m as { type: string }).type === 'shutdown'), 'the shutdown request');
  assert.equal(names().includes('app.quit'), false, 'not before the host is down');
  host.child.emit('exit', 0);
  await until(() => names().includes('app.quit'), 'the quit');
});

const APP_PAGE = 'app://dqn/index.html';
