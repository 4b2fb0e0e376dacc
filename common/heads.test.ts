import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, parseRunConfig, type RunConfigInput } from './config.ts';
import { atomValue, enabledParts, enabledShares, isPlainQ } from './heads.ts';

const cartpole = (heads: RunConfigInput['heads']) => parseRunConfig({ env: { kind: 'cartpole' }, heads });

/** The problems of a config that must be refused. */
function problems(heads: RunConfigInput['heads']): string[] {
  try {
    cartpole(heads);
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    return e.problems;
  }
  assert.fail('the config was accepted');
}

test('the heads defaults are one plain Q head with every other part off, as before heads existed', () => {
  const h = parseRunConfig({ env: { kind: 'cartpole' } }).heads;
  assert.deepEqual(h, {
    main: 'q',
    c51: { atoms: 51, v_min: -10, v_max: 10 },
    iqn: { n: 8, n_prime: 8, k: 32, embedding: 64, kappa: 1, auxiliary: false, share: 0.2 },
    ensemble: { heads: 0, bootstrap_p: 0.5, share: 0.1 },
    cql: { alpha: 0, share: 0.1 },
    spectral: { sigma_max: 0, trunk: true, heads: false },
  });
  assert.equal(isPlainQ(h), true);
  assert.deepEqual(enabledParts(h), { iqn: false, ensemble: false, cql: false, spectral: false });
  assert.deepEqual(enabledShares(h), []);
});

test('each part turns on by its own switch, and only enabled parts count their budget share', () => {
  const h = cartpole({ main: 'c51', ensemble: { heads: 4 }, cql: { alpha: 0.1, share: 0.3 }, iqn: { share: 0.9 } }).heads;
  assert.deepEqual(enabledParts(h), { iqn: false, ensemble: true, cql: true, spectral: false });
  assert.deepEqual(enabledShares(h), [{ part: 'ensemble', share: 0.1 }, { part: 'cql', share: 0.3 }], 'the IQN share (0.9) does not count: it is off');
  assert.equal(isPlainQ(h), false);
  assert.equal(isPlainQ(cartpole({ spectral: { sigma_max: 1 } }).heads), false);
  assert.equal(isPlainQ(cartpole({ cql: { share: 0.5 }, spectral: { trunk: false } }).heads), true, 'settings of parts that are off change nothing');
});

test('a reversed or empty C51 support is refused at v_max, saying what to change', () => {
  assert.deepEqual(problems({ c51: { v_min: 5, v_max: 5 } }), ['heads.c51.v_max: v_max (5) must be above v_min (5): raise heads.c51.v_max or lower heads.c51.v_min (got 5)']);
  assert.deepEqual(problems({ c51: { v_min: 20 } }), ['heads.c51.v_max: v_max (10) must be above v_min (20): raise heads.c51.v_max or lower heads.c51.v_min']);
});

test("the enabled parts' shares must leave the main head a budget: the refusal names each share and their sum", () => {
  assert.deepEqual(problems({ iqn: { auxiliary: true, share: 0.5 }, ensemble: { heads: 2, share: 0.3 }, cql: { alpha: 1, share: 0.2 } }), [
    "heads.cql.share: the enabled parts' gradient-budget shares must sum to below 1 (the main head keeps the rest): heads.iqn.share 0.5 + heads.ensemble.share 0.3 + heads.cql.share 0.2 = 1; lower them (got 0.2)",
  ]);
  assert.equal(cartpole({ iqn: { auxiliary: true, share: 0.5 }, ensemble: { heads: 2, share: 0.3 }, cql: { share: 0.9 } }).heads.cql.share, 0.9, 'CQL is off: its share does not count');
  assert.match(problems({ ensemble: { heads: 1, share: 1 } }).join('\n'), /^heads\.ensemble\.share: must be in \[0, 1\) fraction of grad_clip \(got 1\): lower it below 1$/);
});

test('CQL with an IQN main head, an auxiliary IQN beside an IQN main head and spectral normalisation with nothing to normalise are refused', () => {
  assert.deepEqual(problems({ main: 'iqn', cql: { alpha: 0.5 } }), ["heads.cql.alpha: CQL needs a main head with deterministic Q-values: set heads.main to 'q' or 'c51', or heads.cql.alpha to 0 (got 0.5)"]);
  assert.deepEqual(problems({ main: 'iqn', iqn: { auxiliary: true } }), [
    "heads.iqn.auxiliary: an auxiliary IQN head goes beside a q or c51 main head: set heads.iqn.auxiliary to false (heads.main is already 'iqn') or heads.main to 'q' or 'c51' (got true)",
  ]);
  assert.deepEqual(problems({ spectral: { sigma_max: 1, trunk: false } }), [
    'heads.spectral.sigma_max: spectral normalisation has no matrices to act on: set heads.spectral.trunk or heads.spectral.heads to true, or heads.spectral.sigma_max to 0 (got 1)',
  ]);
  assert.equal(cartpole({ main: 'c51', cql: { alpha: 0.5 }, spectral: { sigma_max: 1, trunk: false, heads: true } }).heads.main, 'c51');
});

test('heads fields keep their ranges and refuse unknown keys', () => {
  const text = problems({ c51: { atoms: 102 }, iqn: { kappa: 0, n: 0 }, ensemble: { heads: 33, bootstrap_p: 0 }, cql: { alpha: -1 }, main: 'qr' as 'q', spectral: { sigma: 1 } as never }).join('\n');
  for (const re of [/heads\.c51\.atoms: must be in \[2, 101\] atoms \(got 102\): lower it to at most 101/, /heads\.iqn\.kappa: must be in \(0, 1e6\] return units \(got 0\): raise it above 0/,
    /heads\.iqn\.n: must be in \[1, 256\] fractions \(got 0\): raise it to at least 1/, /heads\.ensemble\.heads: must be in \[0, 32\] heads \(got 33\): lower it to at most 32/,
    /heads\.ensemble\.bootstrap_p: must be in \(0, 1\] probability \(got 0\): raise it above 0/, /heads\.cql\.alpha: must be in \[0, 1e6\] \(got -1\): raise it to at least 0/,
    /heads\.main: must be one of q, c51, iqn \(got "qr"\)/, /heads\.spectral\.sigma: unknown field \(misspelled\?\)/])
    assert.match(text, re);
});

test('the atoms of a C51 support are evenly spaced from v_min to v_max', () => {
  const c51 = { atoms: 5, v_min: -2, v_max: 6 };
  assert.deepEqual([0, 1, 2, 3, 4].map((j) => atomValue(c51, j)), [-2, 0, 2, 4, 6]);
});
