import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), 'cli.ts');

/** Runs `npm run serve -- ...args` to its exit (it exits at once when it cannot listen). */
function serve(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => (child.kill('SIGKILL'), fail(new Error(`serve did not exit within 30 s; stdout: ${stdout} stderr: ${stderr}`))), 30_000);
    child.on('exit', (code) => (clearTimeout(timer), done({ code, stdout, stderr })));
  });
}

test('a second serve on a busy port says which port is in use and what to do, and exits 1', async () => {
  const first: Server = createServer();
  await new Promise<void>((r) => first.listen(0, '127.0.0.1', r));
  const port = (first.address() as AddressInfo).port;
  const data = mkdtempSync(join(tmpdir(), 'dqn-serve-cli-'));
  try {
    const r = await serve(['--port', String(port), '--no-build', '--data-dir', data, '--runs-dir', data]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `serve: port ${port} on 127.0.0.1 is in use: pass --port N (or stop the other server)\n`);
  } finally {
    await new Promise((r) => first.close(r));
    rmSync(data, { recursive: true, force: true });
  }
});

test('a wildcard --host (0.0.0.0, ::) is refused before anything starts: the page answers only to the name it serves', async () => {
  const data = mkdtempSync(join(tmpdir(), 'dqn-serve-cli-'));
  try {
    for (const host of ['0.0.0.0', '::', '[::]']) {
      const r = await serve(['--host', host, '--port', '0', '--no-build', '--data-dir', data, '--runs-dir', data]);
      assert.equal(r.code, 1, host);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`option '--host <address>' argument '${host.replace(/[[\]]/g, '\\$&')}' is invalid\\. '.+' listens on every interface, .*pass the address or name they will use, e\\.g\\. --host 192\\.0\\.2\\.10`));
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
});
