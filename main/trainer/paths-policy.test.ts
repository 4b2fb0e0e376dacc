// What a client may name (DESIGN section 9): data files inside the allowed folders only, presets
// inside their folder, and CSV files that are regular, small enough and text; messages quote
// CSV content only clipped and sanitized. Real files in a temp folder, real symlinks, a real FIFO.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PresetStore } from '../presets-store.ts';
import { loadOhlcv, loadOhlcvOffThread, OhlcvError } from './data/ohlcv.ts';
import { BUNDLED_DATA_DIR, clientDataDirs, REPO_ROOT } from './paths.ts';
import { clipText, resolveDataPath } from './paths-policy.ts';
import { listPresets, loadPreset } from './presets.ts';

const HEADER = 'timestamp,open,high,low,close,volume';
const ROWS = [HEADER, '2024-01-02T00:00:00Z,1,2,0.5,1.5,10', '2024-01-02T00:01:00Z,1,2,0.5,1.5,10'];

function folders() {
  const root = mkdtempSync(join(tmpdir(), 'dqn-policy-'));
  const allowed = join(root, 'allowed');
  const outside = join(root, 'outside');
  mkdirSync(allowed);
  mkdirSync(outside);
  writeFileSync(join(allowed, 'ok.csv'), `${ROWS.join('\n')}\n`);
  writeFileSync(join(outside, 'secret.csv'), `${ROWS.join('\n')}\n`);
  return { root, allowed, outside };
}

test('env.data from a client must resolve inside an allowed folder; symlinks are followed', () => {
  const { root, allowed, outside } = folders();
  symlinkSync(join(outside, 'secret.csv'), join(allowed, 'link-out.csv'));
  symlinkSync(outside, join(allowed, 'dir-out'));
  symlinkSync(join(allowed, 'ok.csv'), join(outside, 'link-in.csv'));
  const dirs = [BUNDLED_DATA_DIR, allowed];
  const refused = (data: string) => `env.data must be inside one of: ${dirs.join(', ')} (got ${data})`;

  assert.equal(resolveDataPath('ok.csv', allowed, dirs), join(allowed, 'ok.csv'));
  assert.equal(resolveDataPath(join(outside, 'link-in.csv'), root, dirs), join(allowed, 'ok.csv'));
  assert.equal(resolveDataPath('resources/data/spy_1d_1999-2020.csv', REPO_ROOT, dirs), join(BUNDLED_DATA_DIR, 'spy_1d_1999-2020.csv'));
  for (const data of [join(outside, 'secret.csv'), join(allowed, '..', 'outside', 'secret.csv'), join(allowed, 'link-out.csv'), join(allowed, 'dir-out', 'secret.csv'), allowed, '/etc/passwd']) {
    assert.throws(() => resolveDataPath(data, REPO_ROOT, dirs), { message: refused(data) }, data);
  }
  assert.throws(() => resolveDataPath('../outside/secret.csv', allowed, dirs), { message: refused('../outside/secret.csv') });
  assert.throws(() => resolveDataPath(join(allowed, 'missing.csv'), REPO_ROOT, dirs), { message: `env.data: file not found: ${join(allowed, 'missing.csv')}` });
  // The CLI with a local config (no allowed folders) reads any file its user names.
  assert.equal(resolveDataPath(join(outside, 'secret.csv'), REPO_ROOT, undefined), join(outside, 'secret.csv'));
});

test('the host allows the bundled data and the folders the front end lists in DQN_DATA_DIRS', () => {
  assert.deepEqual(clientDataDirs({}), [BUNDLED_DATA_DIR]);
  assert.deepEqual(clientDataDirs({ DQN_DATA_DIRS: '/srv/a:/srv/b' }), [BUNDLED_DATA_DIR, '/srv/a', '/srv/b']);
});

test('a device, a FIFO, a folder, an oversized or a binary file is refused as such; a text CSV still loads', async () => {
  const { allowed } = folders();
  assert.throws(() => loadOhlcv('/dev/zero'), { name: 'OhlcvError', message: '/dev/zero: not a regular file (a CSV file is needed)' });
  assert.throws(() => loadOhlcv(allowed), { message: `${allowed}: not a regular file (a CSV file is needed)` });

  const fifo = join(allowed, 'pipe.csv');
  if (spawnSync('mkfifo', [fifo]).status === 0) {
    // Refused before it is opened: a read would block until a writer came.
    assert.throws(() => loadOhlcv(fifo), { message: `${fifo}: not a regular file (a CSV file is needed)` });
    await assert.rejects(loadOhlcvOffThread(fifo), { message: `${fifo}: not a regular file (a CSV file is needed)` });
  } else {
    console.log('mkfifo is not available: the FIFO case is not tested');
  }

  const ok = join(allowed, 'ok.csv');
  const size = readFileSync(ok).length;
  assert.throws(() => loadOhlcv(ok, { maxBytes: size - 1 }), { message: `${ok}: ${size} bytes, more than the ${size - 1} bytes an OHLCV file may have` });

  const nul = join(allowed, 'nul.csv');
  writeFileSync(nul, Buffer.concat([Buffer.from(`${HEADER}\n`), Buffer.from([0, 1, 2, 3])]));
  assert.throws(() => loadOhlcv(nul), { message: `${nul}: not a text CSV file (it holds NUL bytes)` });
  const latin = join(allowed, 'latin1.csv');
  writeFileSync(latin, Buffer.concat([Buffer.from(`${HEADER}\n`), Buffer.from([0xff, 0xfe, 0x41])]));
  assert.throws(() => loadOhlcv(latin), { message: `${latin}: not a text CSV file (it is not valid UTF-8)` });
  const executable = join(allowed, 'node.csv');
  copyFileSync(process.execPath, executable);
  await assert.rejects(loadOhlcvOffThread(executable, { maxBytes: 1 << 30 }), { message: `${executable}: not a text CSV file (it holds NUL bytes)` });

  const loaded = await loadOhlcvOffThread(ok);
  assert.deepEqual([...loaded.bars.close], [1.5, 1.5]);
  const spy = await loadOhlcvOffThread(resolve(BUNDLED_DATA_DIR, 'spy_1d_1999-2020.csv'));
  assert.equal(spy.bars.close.length, 5241);
});

test('messages quote a CSV row only clipped to 80 characters, control characters replaced', async () => {
  const { allowed } = folders();
  const long = `${'A'.repeat(500)}\u001b[31m`;
  const header = join(allowed, 'header.csv');
  writeFileSync(header, `${long},open\n`);
  assert.throws(() => loadOhlcv(header), (err: unknown) => {
    assert.ok(err instanceof OhlcvError);
    assert.equal(err.message, `${header}: line 1: header must be '${HEADER}', got '${'A'.repeat(80)}...'`);
    return true;
  });
  const row = join(allowed, 'row.csv');
  writeFileSync(row, `${HEADER}\nBAD\u0007\u202eTIME,1,2,0.5,${'9'.repeat(300)}x,10\n`);
  await assert.rejects(loadOhlcvOffThread(row), (err: unknown) => {
    assert.ok(err instanceof OhlcvError);
    assert.match(err.message, /line 2: timestamp 'BAD\?\?TIME' is not ISO-8601/);
    assert.match(err.message, new RegExp(`close '${'9'.repeat(80)}\\.\\.\\.' is not a number`));
    assert.doesNotMatch(err.message, /9{81}/);
    return true;
  });
  assert.equal(clipText('a\nb\u0000c\u200ed'), 'a?b?c?d');
});

test('presets stay inside their folder: no folders, no .., no hidden file, no symlink out', () => {
  const { root, outside } = folders();
  const bundled = join(root, 'bundled');
  const user = join(root, 'user');
  mkdirSync(bundled);
  writeFileSync(join(bundled, 'good.json'), '{"name":"good"}');
  writeFileSync(join(bundled, '.hidden.json'), '{"name":"hidden"}');
  writeFileSync(join(outside, 'leak.json'), '{"name":"leak"}');
  symlinkSync(join(outside, 'leak.json'), join(bundled, 'linked.json'));

  assert.deepEqual(listPresets(bundled), ['good', 'linked']);
  assert.deepEqual(loadPreset('good', bundled), { name: 'good' });
  assert.throws(() => loadPreset('.hidden', bundled), { message: "preset '.hidden' must not start with '.' (no hidden files, no '..')" });
  assert.throws(() => loadPreset('..', bundled), { message: "preset '..' must not start with '.' (no hidden files, no '..')" });
  assert.throws(() => loadPreset('../outside/leak', bundled), { message: "preset '../outside/leak' must be a plain name (no folders)" });
  assert.throws(() => loadPreset('linked', bundled), { message: `preset 'linked' is not inside the presets folder ${bundled}` });

  const store = new PresetStore(user, bundled);
  assert.deepEqual(store.list().map((p) => p.name), ['good']); // the symlink out is skipped
  assert.throws(() => store.save('.sneaky', { env: { kind: 'cartpole' } }), /cannot save preset '\.sneaky': name: .*do not start with "\."/);
  assert.throws(() => store.save('..', { env: { kind: 'cartpole' } }), /cannot save preset '\.\.'/);
  assert.deepEqual(store.save('mine', { env: { kind: 'cartpole' } }).map((p) => `${p.source}:${p.name}`), ['bundled:good', 'user:mine']);
});
