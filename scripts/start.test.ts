import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectron } from './electron-binary.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `npm start`'s script with `env` on top of this process's (minus any Electron overrides). */
function npmStart(args: string[], env: Record<string, string>) {
  const base = { ...process.env };
  delete base.ELECTRON_EXEC_PATH;
  delete base.ELECTRON_OVERRIDE_DIST_PATH;
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts'), ...args], { cwd: ROOT, env: { ...base, ...env }, encoding: 'utf8', timeout: 60_000 });
}

test('the Electron binary is found as electron-vite finds it, and each missing piece is named', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'dqn-start-'));
  try {
    writeFileSync(join(tmp, 'package.json'), '{"name":"p"}');
    assert.deepEqual(findElectron(tmp, {}), { missing: 'the electron package (run `npm install`)' });
    const pkg = join(tmp, 'node_modules', 'electron');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{"name":"electron","main":"index.js"}');
    assert.deepEqual(findElectron(tmp, {}), { missing: 'node_modules/electron/path.txt, so no binary in node_modules/electron/dist' });
    writeFileSync(join(pkg, 'path.txt'), 'electron');
    assert.deepEqual(findElectron(tmp, {}), { missing: 'node_modules/electron/dist/electron' });
    writeFileSync(join(pkg, 'dist', 'electron'), '');
    assert.deepEqual(findElectron(tmp, {}), { path: join(pkg, 'dist', 'electron') });

    const elsewhere = join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    assert.deepEqual(findElectron(tmp, { ELECTRON_OVERRIDE_DIST_PATH: elsewhere }), { missing: `${join(elsewhere, 'electron')} ($ELECTRON_OVERRIDE_DIST_PATH)` });
    writeFileSync(join(pkg, 'path.txt'), 'Electron.app/Contents/MacOS/Electron');
    mkdirSync(join(elsewhere, 'Electron.app', 'Contents', 'MacOS'), { recursive: true });
    writeFileSync(join(elsewhere, 'Electron.app', 'Contents', 'MacOS', 'Electron'), '');
    assert.deepEqual(findElectron(tmp, { ELECTRON_OVERRIDE_DIST_PATH: elsewhere }), { path: join(elsewhere, 'Electron.app', 'Contents', 'MacOS', 'Electron') });

    // $ELECTRON_EXEC_PATH wins over everything else, as in electron-vite.
    assert.deepEqual(findElectron(tmp, { ELECTRON_EXEC_PATH: join(tmp, 'nope'), ELECTRON_OVERRIDE_DIST_PATH: elsewhere }), { missing: `${join(tmp, 'nope')} ($ELECTRON_EXEC_PATH)` });
    assert.deepEqual(findElectron(tmp, { ELECTRON_EXEC_PATH: join(pkg, 'package.json') }), { path: join(pkg, 'package.json') });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('npm start without the Electron binary prints one line saying what is missing and what to do, and exits 1', () => {
  const empty = mkdtempSync(join(tmpdir(), 'dqn-start-'));
  try {
    const r = npmStart([], { ELECTRON_OVERRIDE_DIST_PATH: empty });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /^npm start: the Electron binary is not installed \(missing .*\/electron \(\$ELECTRON_OVERRIDE_DIST_PATH\)\): run `npx install-electron` where downloads are allowed, or `npm run serve` for the dashboard in a browser$/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('npm start with the binary present runs electron-vite preview, which launches that binary', () => {
  const dist = mkdtempSync(join(tmpdir(), 'dqn-start-'));
  try {
    // A stand-in binary that reports how it was called (electron-vite passes the app entry, ".").
    const fake = join(dist, 'electron');
    writeFileSync(fake, '#!/bin/sh\necho "launched with: $*"\n');
    chmodSync(fake, 0o755);
    const r = npmStart(['--skipBuild'], { ELECTRON_OVERRIDE_DIST_PATH: dist, ELECTRON_ENTRY: '.' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^launched with: \.$/m);
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
});
