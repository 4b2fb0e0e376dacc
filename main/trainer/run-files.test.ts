import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { createRunDir } from './run-dir.ts';
import { renameRunDir, trashRunDir } from './run-files.ts';

test('only run folders are renamed or moved to the trash: never a seeds summary, a plain folder, a broken run or a link', () => {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-run-files-'));
  const run = createRunDir(runs, parseRunConfig({ name: 'cp', env: { kind: 'cartpole' } }));
  writeFileSync(join(runs, '20261201-100000-cp-seeds.json'), '{"runs": []}');
  mkdirSync(join(runs, 'notes'));
  mkdirSync(join(runs, 'broken'));
  writeFileSync(join(runs, 'broken', 'config.json'), '{"env": {"kind": "pong"}}');
  symlinkSync(run, join(runs, 'alias'));
  const before = readdirSync(runs).sort();
  for (const [name, why] of [
    ['20261201-100000-cp-seeds.json', 'not a folder of its own: a file or a link'],
    ['notes', 'no valid config.json'],
    ['broken', 'no valid config.json'],
    ['alias', 'not a folder of its own: a file or a link'],
  ]) {
    const refusal = { message: `'${name}' is not a run folder (${why}): only runs are renamed or moved to the trash` };
    assert.throws(() => trashRunDir(runs, join(runs, name!)), refusal);
    assert.throws(() => renameRunDir(runs, join(runs, name!), 'renamed'), refusal);
  }
  assert.deepEqual(readdirSync(runs).sort(), before, 'nothing moved');
  const renamed = renameRunDir(runs, run, 'renamed');
  trashRunDir(runs, renamed);
  assert.deepEqual(readdirSync(join(runs, '.trash')), ['renamed']);
});
