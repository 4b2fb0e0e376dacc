// The packaging step on a stand-in Electron folder (the real binary is not installed on CI): the
// app goes into app.asar with the addon unpacked, Electron's default app is gone, and the fuses
// of scripts/fuses.ts are flipped in the copied binary (its fuse wire is the real format).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPackage } from '@electron/asar';
import { FuseState, FuseV1Options, FuseVersion, getCurrentFuseWire } from '@electron/fuses';
import { PACKAGED_FUSES } from './fuses.ts';
import { packageApp } from './package.ts';

const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/** Electron 45's shipped fuse states, in wire order: RunAsNode ... WasmTrapHandlers. */
const SHIPPED = '101100011';

function fakeRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-pack-'));
  const root = join(dir, 'repo');
  for (const d of ['out/main', 'out/renderer', 'out/preload', 'resources/presets', 'build/native/Release']) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'dqn-console', version: '0.1.0', devDependencies: { electron: '45' } }));
  writeFileSync(join(root, 'out/main/index.js'), 'export {};');
  writeFileSync(join(root, 'out/renderer/index.html'), '<!doctype html>');
  writeFileSync(join(root, 'resources/presets/cartpole.json'), '{}');
  writeFileSync(join(root, 'build/native/Release/dqn_native.node'), 'not really a shared object');
  const dist = join(dir, 'electron-dist');
  mkdirSync(join(dist, 'resources'), { recursive: true });
  writeFileSync(join(dist, 'electron'), Buffer.concat([Buffer.alloc(4096, 7), Buffer.from(SENTINEL), Buffer.from([1, SHIPPED.length]), Buffer.from(SHIPPED), Buffer.alloc(4096, 9)]));
  writeFileSync(join(dist, 'resources', 'default_app.asar'), 'default app');
  writeFileSync(join(dist, 'libffmpeg.so'), 'lib');
  return { dir, root, binary: join(dist, 'electron'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('the packaged fuses turn off RunAsNode, NODE_OPTIONS and inspect, and load only app.asar', () => {
  assert.equal(PACKAGED_FUSES.version, FuseVersion.V1);
  assert.equal(PACKAGED_FUSES[FuseV1Options.RunAsNode], false);
  assert.equal(PACKAGED_FUSES[FuseV1Options.EnableNodeOptionsEnvironmentVariable], false);
  assert.equal(PACKAGED_FUSES[FuseV1Options.EnableNodeCliInspectArguments], false);
  assert.equal(PACKAGED_FUSES[FuseV1Options.OnlyLoadAppFromAsar], true);
  assert.equal(PACKAGED_FUSES[FuseV1Options.GrantFileProtocolExtraPrivileges], false);
});

test('packaging puts the app into app.asar (addon unpacked), drops the default app and flips the fuses in the copy', async () => {
  const { dir, root, binary, cleanup } = fakeRepo();
  try {
    const outDir = join(dir, 'dist', 'app');
    const exe = await packageApp({ root, electronBinary: binary, outDir });
    assert.equal(exe, join(outDir, 'electron'));
    const files = listPackage(join(outDir, 'resources', 'app.asar'), { isPack: false }).sort();
    for (const f of ['/package.json', '/out/main/index.js', '/out/renderer/index.html', '/resources/presets/cartpole.json', '/build/native/Release/dqn_native.node'])
      assert.ok(files.includes(f), `${f} in app.asar (${files.join(', ')})`);
    assert.equal(readFileSync(join(outDir, 'resources', 'app.asar.unpacked', 'build', 'native', 'Release', 'dqn_native.node'), 'utf8'), 'not really a shared object');
    assert.equal(existsSync(join(outDir, 'resources', 'default_app.asar')), false);
    assert.equal(existsSync(join(outDir, 'libffmpeg.so')), true, "the rest of Electron's folder is copied");
    const wire = await getCurrentFuseWire(exe);
    const s = (o: FuseV1Options) => wire[o];
    assert.equal(s(FuseV1Options.RunAsNode), FuseState.DISABLE);
    assert.equal(s(FuseV1Options.EnableCookieEncryption), FuseState.ENABLE);
    assert.equal(s(FuseV1Options.EnableNodeOptionsEnvironmentVariable), FuseState.DISABLE);
    assert.equal(s(FuseV1Options.EnableNodeCliInspectArguments), FuseState.DISABLE);
    assert.equal(s(FuseV1Options.OnlyLoadAppFromAsar), FuseState.ENABLE);
    assert.equal(s(FuseV1Options.GrantFileProtocolExtraPrivileges), FuseState.DISABLE);
    assert.equal(s(FuseV1Options.WasmTrapHandlers), FuseState.ENABLE, 'a fuse we do not set keeps its shipped state');
    const original = await getCurrentFuseWire(binary);
    assert.equal(original[FuseV1Options.RunAsNode], FuseState.ENABLE, 'the development Electron is left alone');
  } finally {
    cleanup();
  }
});

test('packaging without a build says what is missing', async () => {
  const { dir, root, binary, cleanup } = fakeRepo();
  try {
    rmSync(join(root, 'out'), { recursive: true });
    await assert.rejects(packageApp({ root, electronBinary: binary, outDir: join(dir, 'x') }), { message: `cannot package: ${join(root, 'out', 'main', 'index.js')} is missing (run \`npm run build\` and \`npm run build:native\` first)` });
  } finally {
    cleanup();
  }
});
