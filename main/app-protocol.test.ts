import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_PAGE_URL, APP_SCHEME_PRIVILEGES, appFileResponse, handleAppProtocol } from './app-protocol.ts';
import { DENIED_EVENTS, guardContents, type GuardedEvent } from './contents-guard.ts';
import { PAGE_CSP } from './static-files.ts';

function rendererDir() {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-app-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>DQN Console</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'secret');
  symlinkSync(join(dir, 'secret.txt'), join(renderer, 'assets', 'link.txt'));
  return { dir, renderer, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const get = (renderer: string, url: string, method = 'GET') => appFileResponse(renderer, { url, method });

test('app:// serves the built renderer: the page with its CSP, assets with their types', async () => {
  const { renderer, cleanup } = rendererDir();
  try {
    assert.equal(APP_PAGE_URL, 'app://dqn/index.html');
    assert.deepEqual(APP_SCHEME_PRIVILEGES, { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } });
    const page = await get(renderer, APP_PAGE_URL);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('content-security-policy'), PAGE_CSP);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(await page.text(), '<!doctype html><title>DQN Console</title>');
    assert.equal(await (await get(renderer, 'app://dqn/')).text(), '<!doctype html><title>DQN Console</title>', '/ is the page');
    const js = await get(renderer, 'app://dqn/assets/app.js');
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(await js.text(), 'console.log(1)');
    const head = await get(renderer, 'app://dqn/assets/app.js', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  } finally {
    cleanup();
  }
});

test('app:// serves nothing outside the renderer folder and refuses odd requests', async () => {
  const { renderer, cleanup } = rendererDir();
  try {
    const cases: [string, string, number][] = [
      ['app://dqn/assets/link.txt', 'GET', 404], // a symlink out of the folder
      ['app://dqn/../secret.txt', 'GET', 404], // the URL parser folds `..` at the root
      ['app://dqn/%2e%2e/secret.txt', 'GET', 404], // so are encoded dot segments
      ['app://dqn/assets/..%2f..%2fsecret.txt', 'GET', 400],
      ['app://dqn/%', 'GET', 400],
      ['app://dqn/a%00b', 'GET', 400],
      ['app://dqn/assets', 'GET', 404], // a folder
      ['app://dqn/missing.js', 'GET', 404],
      ['app://other/index.html', 'GET', 403],
      ['file:///etc/passwd', 'GET', 400],
      ['not a url', 'GET', 400],
      ['app://dqn/index.html', 'POST', 405],
    ];
    for (const [url, method, status] of cases) {
      const res = await get(renderer, url, method);
      assert.equal(res.status, status, `${method} ${url}`);
      assert.doesNotMatch(await res.text(), /secret/, url);
    }
  } finally {
    cleanup();
  }
});

test('handleAppProtocol registers the app scheme with Electron’s protocol module', async () => {
  const { renderer, cleanup } = rendererDir();
  try {
    const handlers = new Map<string, (r: Request) => Response | Promise<Response>>();
    handleAppProtocol({ handle: (scheme, h) => void handlers.set(scheme, h) }, renderer);
    assert.deepEqual([...handlers.keys()], ['app']);
    const res = await handlers.get('app')!(new Request('app://dqn/assets/app.js'));
    assert.equal(await res.text(), 'console.log(1)');
  } finally {
    cleanup();
  }
});

test('every navigation, frame navigation, redirect, webview and new window is refused and reported', () => {
  const contents = Object.assign(new EventEmitter(), {
    openHandler: undefined as undefined | ((d: { url: string }) => { action: 'deny' }),
    setWindowOpenHandler(h: (d: { url: string }) => { action: 'deny' }) {
      this.openHandler = h;
    },
  });
  const denied: string[] = [];
  guardContents(contents, (what, url) => denied.push(`${what} ${url}`));
  assert.deepEqual([...DENIED_EVENTS], ['will-navigate', 'will-frame-navigate', 'will-redirect', 'will-attach-webview']);
  for (const name of DENIED_EVENTS) {
    let prevented = false;
    const event: GuardedEvent = { url: `https://evil.example/${name}`, preventDefault: () => void (prevented = true) };
    contents.emit(name, event);
    assert.equal(prevented, true, name);
  }
  let prevented = false;
  contents.emit('will-redirect', { preventDefault: () => void (prevented = true) }, 'https://evil.example/old-signature');
  assert.equal(prevented, true);
  assert.deepEqual(contents.openHandler!({ url: 'https://evil.example/popup' }), { action: 'deny' });
  assert.deepEqual(denied, [
    'will-navigate https://evil.example/will-navigate',
    'will-frame-navigate https://evil.example/will-frame-navigate',
    'will-redirect https://evil.example/will-redirect',
    'will-attach-webview https://evil.example/will-attach-webview',
    'will-redirect https://evil.example/old-signature',
    'window.open https://evil.example/popup',
  ]);
});
