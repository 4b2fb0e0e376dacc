import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_USER_PRESETS, PresetStore } from './presets-store.ts';
import { loadPreset, MAX_PRESET_BYTES } from './trainer/presets.ts';

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
    assert.throws(() => store.save('bad', { env: { kind: 'cartpole' }, optim: { lr: -1 } }), { message: "cannot save preset 'bad': config.optim.lr: must be in (0, 1] 1/step (got -1): raise it above 0" });
    assert.throws(() => store.save('bad', { env: { kind: 'cartpole' }, optim: { learning_rate: 0.001 } } as never), {
      message: "cannot save preset 'bad': config.optim.learning_rate: unknown field (misspelled?): optim has lr, lr_end, lr_decay_steps, adam_eps, grad_clip, batch_size, gamma, n_step, double_dqn, huber_delta, target_update",
    });
    assert.deepEqual(store.handle({ op: 'list' }).length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('user presets are bounded: a folder of 250 lists its first MAX_USER_PRESETS, a new one past them is refused, one saved over is kept; an oversized file is skipped (issue 26 item 7)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-presets-'));
  try {
    const bundled = join(dir, 'bundled');
    const user = join(dir, 'user');
    mkdirSync(bundled);
    mkdirSync(user);
    writeFileSync(join(bundled, 'cartpole.json'), JSON.stringify({ env: { kind: 'cartpole' } }));
    for (let i = 0; i < 250; i++) writeFileSync(join(user, `p${String(i).padStart(3, '0')}.json`), JSON.stringify({ env: { kind: 'cartpole' }, seed: i }));
    writeFileSync(join(user, 'big.json'), JSON.stringify({ env: { kind: 'cartpole' }, name: 'x'.repeat(MAX_PRESET_BYTES) }));
    const store = new PresetStore(user, bundled);
    const listed = store.list().filter((p) => p.source === 'user').map((p) => p.name);
    assert.equal(listed.length, MAX_USER_PRESETS - 1, 'the first MAX_USER_PRESETS by name, less the oversized one');
    assert.deepEqual([listed[0], listed.at(-1)], ['p000', 'p198']);
    assert.throws(() => store.save('fresh', { env: { kind: 'cartpole' } }), { message: `cannot save preset 'fresh': ${user} holds 251 presets, the most kept is ${MAX_USER_PRESETS}; delete some there or save over one` });
    store.save('p000', { env: { kind: 'cartpole' }, seed: 7 });
    assert.equal(JSON.parse(readFileSync(join(user, 'p000.json'), 'utf8')).seed, 7);
    assert.throws(() => loadPreset('big', user), new RegExp(`preset 'big' holds \\d+ bytes, more than a preset may \\(${MAX_PRESET_BYTES}\\)`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
