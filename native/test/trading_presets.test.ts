import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { loadOhlcv } from '../../main/trainer/data/ohlcv.ts';
import { createEnv } from '../env.ts';
import { Reference, refParams } from './trading_reference.ts';

function preset(name: string) {
  const config = parseRunConfig(JSON.parse(readFileSync(resolve('resources/presets', name), 'utf8')));
  assert.equal(config.env.kind, 'trading');
  if (config.env.kind !== 'trading') throw new Error('unreachable');
  const { bars, problems } = loadOhlcv(resolve(config.env.data), { badRows: config.env.bad_rows });
  assert.deepEqual(problems, []);
  const ref = new Reference(bars, refParams(config.env));
  return { config, env: config.env, bars, ref };
}

// SPY acts by steps (hold, up, down, flat: 4 actions) over 9 position levels since its sweep (resources/sweeps/trading-spy-preset.json).
for (const [file, nActions, nominal] of [['trading-6e.json', 45, 60], ['trading-spy.json', 4, 86400]] as const) {
  test(`preset ${file} builds a ${nActions}-action env with state_dim 51 whose observations match the reference`, () => {
    const { config, env, bars, ref } = preset(file);
    assert.equal(ref.nominal, nominal);
    const train = createEnv({ ...env, seed: config.seed }, bars, false);
    assert.equal(train.obsDim, 51);
    assert.equal(train.numActions, nActions);
    assert.equal(train.numEnvs, env.num_envs);
    assert.deepEqual(
      train.causalFeatures.map((g) => g.indices),
      [...Array(7).keys()].map((f) => [...Array(7).keys()].map((k) => k * 7 + f)),
    );
    const obs = train.reset();
    for (let i = 0; i < 2; i++) {
      const o = obs.subarray(i * 51, (i + 1) * 51);
      const t = ref.locate(o, false, 1e-4);
      assert.ok(t >= 0, `copy ${i} starts at a training decision bar`);
      assert.ok(o.every((v, j) => Math.abs(v - ref.obs(t, 0, 0)[j]!) <= 1e-4 * (1 + Math.abs(v))));
    }
    for (const role of ['validation', 'test'] as const) {
      const first = createEnv({ ...env, num_envs: 1, seed: config.seed }, bars, role).reset();
      const start = ref.decisionBars(role)[0]!;
      assert.equal(start, ref.spans[role].begin + 26, `the ${role} walk starts after its own 26-bar warm-up`);
      assert.ok(first.every((v, j) => Math.abs(v - ref.obs(start, 0, 0)[j]!) <= 1e-4 * (1 + Math.abs(v))), `${role}: first observation`);
    }
    assert.ok(ref.spans.train.end + env.embargo_bars === ref.spans.validation.begin && ref.spans.validation.end + env.embargo_bars === ref.spans.test.begin, 'embargoes between the spans');
  });
}

test('the SPY gap rule cuts only at the 2001-09-11 closure', () => {
  const { bars, ref } = preset('trading-spy.json');
  const cuts = ref.segStart.flatMap((s, t) => (s === t && t > 0 ? [t] : []));
  assert.deepEqual(cuts.map((t) => new Date(bars.timestamps[t]! * 1000).toISOString().slice(0, 10)), ['2001-09-17']);
});

test('the 6E gap rule cuts at the 18 daily breaks and 4 weekends and keeps single missing minutes inside a segment', () => {
  const { bars, ref } = preset('trading-6e.json');
  const hhmm = (t: number): string => new Date(bars.timestamps[t]! * 1000).toISOString().slice(11, 16);
  const opens = ref.segStart.flatMap((s, t) => (t > 0 && hhmm(t - 1) === '22:00' && hhmm(t) === '23:01' ? [t] : []));
  assert.equal(opens.length, 22);
  for (const t of opens) assert.equal(ref.segStart[t], t);
  for (let t = 1; t < bars.close.length; t++)
    if (bars.timestamps[t]! - bars.timestamps[t - 1]! === 120) assert.equal(ref.segStart[t], ref.segStart[t - 1]);
});
