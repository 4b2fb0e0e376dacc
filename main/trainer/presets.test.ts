// The bundled presets (resources/presets/): every one is a valid config named after its file,
// and the heads presets ask for the heads they are named for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig, type RunConfig } from '../../common/config.ts';
import { enabledShares, isPlainQ } from '../../common/heads.ts';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPresets, loadPreset, parseJsonText, readJsonFile } from './presets.ts';

/** Preset `name`, parsed, after checking that it is preset `base` but for its name and its heads. */
function headsVariant(name: string, base: string): RunConfig {
  const plain = parseRunConfig(loadPreset(base));
  const variant = parseRunConfig(loadPreset(name));
  assert.deepEqual({ ...variant, name: base, heads: plain.heads }, plain, 'only the name and the heads differ');
  return variant;
}

test('every bundled preset is a valid config whose name is its file name', () => {
  const names = listPresets();
  assert.deepEqual(names, ['cartpole', 'cartpole-c51', 'cartpole-iqn', 'trading-6e', 'trading-6e-full', 'trading-spy']);
  for (const name of names) assert.equal(parseRunConfig(loadPreset(name)).name, name);
});

test('cartpole-c51 is the cartpole preset with a C51 head on a support that holds its returns', () => {
  const c51 = headsVariant('cartpole-c51', 'cartpole');
  assert.deepEqual(c51.heads.c51, { atoms: 51, v_min: 0, v_max: 100 });
  assert.equal(c51.heads.main, 'c51');
  assert.equal(isPlainQ({ ...c51.heads, main: 'q' }), true, 'nothing else is on');
  // CartPole pays +1 per step: every discounted return lies in [0, 1 / (1 - gamma)].
  assert.ok(Math.abs(c51.heads.c51.v_max - 1 / (1 - c51.optim.gamma)) < 1e-9);
});

test("trading-6e-full is trading-6e with the original system's whole stack: C51, auxiliary IQN, ensemble, CQL and spectral normalisation", () => {
  const full = headsVariant('trading-6e-full', 'trading-6e');
  const h = full.heads;
  assert.equal(h.main, 'c51');
  assert.deepEqual([h.ensemble.heads, h.cql.alpha, h.spectral.sigma_max, h.spectral.trunk, h.spectral.heads], [4, 0.1, 1, true, false]);
  assert.deepEqual(enabledShares(h), [{ part: 'iqn', share: 0.2 }, { part: 'ensemble', share: 0.1 }, { part: 'cql', share: 0.1 }], 'the main head keeps 0.6 of the budget');
});

test("cartpole-iqn is the cartpole preset with an IQN main head at the config's IQN defaults", () => {
  const iqn = headsVariant('cartpole-iqn', 'cartpole');
  assert.deepEqual(iqn.heads, parseRunConfig({ env: { kind: 'cartpole' }, heads: { main: 'iqn' } }).heads);
});

test('a config that is not JSON is refused with the line and column to fix, a bare NaN or Infinity by name', () => {
  const refusal = (text: string) => {
    try {
      parseJsonText(text, 'run.json');
    } catch (e) {
      return (e as Error).message;
    }
    assert.fail('parsed');
  };
  assert.equal(refusal('{\n  "optim": { "lr": 0.1 \n}'), 'run.json is not valid JSON (line 3, column 2)', 'a missing brace: where the text ends');
  assert.equal(refusal('{\n  "optim": { "lr": NaN }\n}'), 'run.json is not valid JSON (line 2, column 20: NaN is not a number in JSON, which has no NaN or Infinity: write a finite number)');
  assert.match(refusal('{ "name": "NaN", "seed": -Infinity }'), /\(line 1, column 26: -Infinity is not a number in JSON/, 'a NaN inside a string is text, not the problem');
  assert.equal(refusal('not json at all'), 'run.json is not valid JSON', 'no place known: the file is named, its text is not');
});

test('the CartPole presets stop once CartPole-v1 is solved (an evaluation mean return of 475); the trading presets run every epoch', () => {
  const targets = Object.fromEntries(listPresets().map((name) => [name, parseRunConfig(loadPreset(name)).schedule.target_return]));
  assert.deepEqual(targets, { cartpole: 475, 'cartpole-c51': 475, 'cartpole-iqn': 475, 'trading-6e': null, 'trading-6e-full': null, 'trading-spy': null });
});

test('a misspelled preset is answered with the closest name, as a misspelled config field is; a name far from every preset lists them', () => {
  assert.throws(() => loadPreset('cartpol'), { name: 'InputError', message: "unknown preset 'cartpol': did you mean cartpole? available presets are cartpole, cartpole-c51, cartpole-iqn, trading-6e, trading-6e-full, trading-spy" });
  assert.throws(() => loadPreset('trading-6f'), { name: 'InputError', message: /^unknown preset 'trading-6f': did you mean trading-6e\? / });
  assert.throws(() => loadPreset('pong'), { name: 'InputError', message: "unknown preset 'pong': available presets are cartpole, cartpole-c51, cartpole-iqn, trading-6e, trading-6e-full, trading-spy" });
  assert.throws(() => loadPreset('../cartpole'), { name: 'InputError' }, 'a name with a folder is the user\'s input too');
});

test('a config file that cannot be read says why in a few words, as the OHLCV loader does: not found, a folder, not a regular file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  assert.throws(() => readJsonFile(join(dir, 'missing.json'), 'config file'), { name: 'InputError', message: `config file not found: ${join(dir, 'missing.json')}` });
  assert.throws(() => readJsonFile(dir, 'config file'), { name: 'InputError', message: `config file is a folder, not a file: ${dir}` });
  assert.throws(() => readJsonFile('/dev/null/x.json', 'sweep file'), { name: 'InputError', message: /^cannot read sweep file \/dev\/null\/x\.json: a part of the path is a file, not a folder/ });
  if (existsSync('/dev/zero')) assert.throws(() => readJsonFile('/dev/zero', 'config file'), { name: 'InputError', message: 'config file is not a regular file: /dev/zero' }, 'refused before a read that would never end');
  writeFileSync(join(dir, 'bad.json'), '{"env": ');
  assert.throws(() => readJsonFile(join(dir, 'bad.json'), 'config file'), { name: 'InputError', message: `${join(dir, 'bad.json')} is not valid JSON` });
  writeFileSync(join(dir, 'ok.json'), '{"env": {"kind": "cartpole"}}');
  assert.deepEqual(readJsonFile(join(dir, 'ok.json'), 'config file'), { env: { kind: 'cartpole' } });
});
