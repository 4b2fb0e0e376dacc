// The checkpoint's heads (native/src/train/trainer_state.cpp, version 2): the blob carries the
// heads description and spectral normalisation's vectors; a version-1 checkpoint (written before
// heads existed, native/test/fixtures/checkpoint-v1-cartpole*.bin, by the code at 054b8ed) still
// loads as the plain Q head and resumes; a checkpoint of other heads is refused, naming each
// difference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { createTrainer } from '../trainer.ts';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const version = (blob: Uint8Array) => new DataView(blob.buffer, blob.byteOffset).getUint32(4, true);

/** The config the version-1 fixtures were written with (seed 5; the resumed one by a seed-77 trainer). */
function config(patch: Partial<RunConfigInput> = {}) {
  return parseRunConfig({
    seed: 5, env: { kind: 'cartpole', num_envs: 2 }, network: { hidden: [16] }, replay: { capacity: 256 },
    optim: { lr: 1e-3, batch_size: 16, target_update: { kind: 'hard', interval: 10 } },
    exploration: { eps_decay_steps: 500 }, schedule: { learning_starts: 64, train_every: 2, q_stats_interval: 5, causal_interval: 5 },
    ...patch,
  });
}
const c51Heads = { main: 'c51', c51: { atoms: 21, v_min: 0, v_max: 50 }, cql: { alpha: 0.2 }, spectral: { sigma_max: 2, heads: true } } as const;

test('a version-1 checkpoint loads as the plain Q head and resumes exactly as the code that wrote it resumed it', async () => {
  const v1 = fixture('checkpoint-v1-cartpole.bin');
  assert.equal(version(v1), 1);
  const t = createTrainer({ config: config({ seed: 77 }), backend: 'cpu' });
  t.loadState(v1);
  await t.run(20);
  // The 054b8ed trainer did the same (load, run 20) and saved: the same state, now as version 2.
  const then = createTrainer({ config: config(), backend: 'cpu' });
  then.loadState(fixture('checkpoint-v1-cartpole-resumed.bin'));
  const now = t.saveState();
  assert.equal(version(now), 2);
  assert.deepEqual(now, then.saveState());
});

test('a C51 + CQL + spectral checkpoint restores the weights, Adam state and spectral vectors into a trainer of another seed', async () => {
  const t = createTrainer({ config: config({ heads: c51Heads }), backend: 'cpu' });
  await t.run(30);
  const saved = t.saveState();
  const u = createTrainer({ config: config({ seed: 9, heads: c51Heads }), backend: 'cpu' });
  assert.notDeepEqual(u.saveState(), saved);
  u.loadState(saved);
  assert.deepEqual(u.saveState(), saved);
  await u.run(5);
});

test('a checkpoint of other heads is refused, naming each difference', async () => {
  const q = createTrainer({ config: config(), backend: 'cpu' });
  const c51 = createTrainer({ config: config({ heads: c51Heads }), backend: 'cpu' });
  assert.throws(() => q.loadState(c51.saveState()), {
    name: 'RangeError',
    message: 'trainer state heads differ from this trainer\'s: heads.main is c51 in the checkpoint, q in this run; heads.c51.atoms is 21 in the checkpoint, not set in this run; '
      + 'heads.c51.v_min is 0 in the checkpoint, not set in this run; heads.c51.v_max is 50 in the checkpoint, not set in this run; heads.cql.alpha is 0.2 in the checkpoint, not set in this run; '
      + 'heads.cql.share is 0.1 in the checkpoint, not set in this run; heads.spectral.sigma_max is 2 in the checkpoint, not set in this run; heads.spectral.trunk is true in the checkpoint, not set in this run; '
      + 'heads.spectral.heads is true in the checkpoint, not set in this run',
  });
  assert.throws(() => c51.loadState(fixture('checkpoint-v1-cartpole.bin')), { message: /^trainer state heads differ from this trainer's: heads\.main is q in the checkpoint, c51 in this run; heads\.c51\.atoms is not set in the checkpoint, 21 in this run; / });
  const wider = createTrainer({ config: config({ heads: { ...c51Heads, c51: { ...c51Heads.c51, v_max: 60 } } }), backend: 'cpu' });
  assert.throws(() => wider.loadState(c51.saveState()), { message: 'trainer state heads differ from this trainer\'s: heads.c51.v_max is 50 in the checkpoint, 60 in this run' });
  // A plain Q run whose unused C51 fields differ is the same run: only the fields in use count.
  const otherSupport = createTrainer({ config: config({ heads: { c51: { atoms: 11, v_min: -1, v_max: 1 } } }), backend: 'cpu' });
  otherSupport.loadState(q.saveState());
  const future = q.saveState();
  new DataView(future.buffer).setUint32(4, 3, true);
  assert.throws(() => q.loadState(future), { message: 'trainer state version 3 is not supported (expected 1 or 2)' });
});
