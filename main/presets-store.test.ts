import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PresetStore } from './presets-store.ts';

test('presets list bundled then user files, and a save writes the user folder only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-presets-'));
  try {
    const bundled = join(dir, 'bundled');
    mkdirSync(bundled);
    writeFileSync(join(bundled, 'cartpole.json'), JSON.stringify({ env: { kind: 'cartpole' } }));
    writeFileSync(join(bundled, 'broken.json'), '{ not json');
    const store = new PresetStore(join(dir, 'user'), bundled);
    assert.deepEqual(store.list().map((p) => `${p.source}:${p.name}`), ['bundled:cartpole']);
    const after = store.save('mine', { env: { kind: 'cartpole', num_envs: 4 }, optim: { lr: 0.001 } });
    assert.deepEqual(after.map((p) => `${p.source}:${p.name}`), ['bundled:cartpole', 'user:mine']);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'user', 'mine.json'), 'utf8')), { env: { kind: 'cartpole', num_envs: 4 }, optim: { lr: 0.001 } });
    assert.deepEqual(readdirSync(join(dir, 'user')), ['mine.json'], 'no temporary file is left behind');
    assert.deepEqual(readdirSync(bundled).sort(), ['broken.json', 'cartpole.json']);
    assert.throws(() => store.save('../escape', { env: { kind: 'cartpole' } }), /cannot save preset '\.\.\/escape': name: use letters/);
    assert.throws(() => store.save('bad', { env: { kind: 'cartpole' }, optim: { lr: -1 } }), /config\.optim\.lr/);
    assert.deepEqual(store.handle({ op: 'list' }).length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
