import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configDiff, editorRows, fieldHelpText, fieldText, getAt, parseFieldText, setAt, validate, variantDefaults, withDefaults, type FieldSpec } from './fields.ts';
import { numberText } from '../../common/config-problems.ts';
import { ConfigError, parseRunConfig, type RunConfigInput } from '../../common/config.ts';

test('every field shows its default, unit and range from the schema', () => {
  const draft = withDefaults({ env: { kind: 'cartpole' } });
  const rows = editorRows(draft);
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const lr = byPath.get('optim.lr') as FieldSpec;
  assert.equal(lr.kind, 'number');
  assert.equal(lr.default, 2.5e-4);
  assert.equal(lr.unit, '1/step');
  assert.equal(lr.range, '(0, 1]');
  const envs = byPath.get('env.num_envs') as FieldSpec;
  assert.deepEqual([envs.kind, envs.range, envs.unit, envs.default], ['integer', '[1, 4096]', 'envs', 8]);
  assert.deepEqual(byPath.get('env.kind'), { kind: 'variant', path: 'env.kind', label: 'env.kind', options: ['cartpole', 'trading'] });
  assert.equal(byPath.has('env.lags'), false, 'trading fields are hidden for a cartpole draft');
  assert.deepEqual((byPath.get('replay.sampler') as FieldSpec).options, ['proportional', 'rank', 'uniform']);
  assert.equal((byPath.get('network.hidden') as FieldSpec).kind, 'integer-list');
  assert.equal((byPath.get('optim.target_update.interval') as FieldSpec).unit, 'steps');
  // Every leaf of a full config has an editor row.
  const leaves = ['name', 'seed', 'backend', 'env.kind', 'env.num_envs', 'env.max_episode_steps', 'network.hidden', 'network.dueling', 'optim.target_update.kind', 'schedule.causal_interval'];
  for (const p of leaves) assert.ok(byPath.has(p), p);
  const trading = editorRows(setAt(draft, 'env', variantDefaults('env', 'trading')));
  assert.ok(trading.some((r) => r.path === 'env.lags'));
  assert.deepEqual(variantDefaults('optim.target_update', 'polyak'), { kind: 'polyak', tau: 0.005 });
});

test('a negative learning rate and a non-number are reported at their fields', () => {
  const draft = withDefaults({ env: { kind: 'cartpole' } });
  const lr = editorRows(draft).find((r) => r.path === 'optim.lr') as FieldSpec;
  const bad = setAt(setAt(draft, 'optim.lr', parseFieldText(lr, '-0.001')), 'seed', parseFieldText(lr, 'abc'));
  const problems = validate(bad);
  assert.equal(problems.get('optim.lr'), 'must be in (0, 1] 1/step (got -0.001): raise it above 0');
  assert.match(problems.get('seed')!, /number/);
  assert.equal(problems.size, 2);
  assert.equal(validate(draft).size, 0);
  assert.deepEqual(parseFieldText({ kind: 'integer-list', path: 'network.hidden', label: '' }, '64, 32'), [64, 32]);
});

test('typed numbers: decimals and exponents only; list entries and empty fields are reported at their field in words', () => {
  const draft = withDefaults({ env: { kind: 'cartpole' } });
  const rows = editorRows(draft);
  const field = (path: string) => rows.find((r) => r.path === path) as FieldSpec;
  const [lr, hidden, seed] = [field('optim.lr'), field('network.hidden'), field('seed')];
  assert.deepEqual(['0.001', '1e-4', '.5', '-3', '+2E3'].map((t) => parseFieldText(lr, t)), [0.001, 1e-4, 0.5, -3, 2000]);
  assert.deepEqual(['0x10', 'Infinity', '1_000', '', '1.2.3'].map((t) => parseFieldText(lr, t)), ['0x10', 'Infinity', '1_000', '', '1.2.3'], 'kept as text: refused below');
  assert.deepEqual(parseFieldText(hidden, '64 32'), [64, 32]);
  assert.equal(parseFieldText(hidden, '64,,64'), '64,,64', 'an empty entry is not dropped silently');
  let bad = setAt(setAt(draft, 'optim.lr', parseFieldText(lr, '0x10')), 'seed', parseFieldText(seed, ' '));
  bad = setAt(bad, 'network.hidden', parseFieldText(hidden, '64, 0'));
  const problems = validate(bad);
  assert.equal(problems.get('optim.lr'), "'0x10' is not a number: give one in (0, 1] 1/step");
  assert.equal(problems.get('seed'), 'a number is required: give one in [0, 2147483647]');
  assert.equal(problems.get('network.hidden'), 'entry 2: must be in [1, 4096] units (got 0): raise it to at least 1');
  assert.equal(problems.size, 3, [...problems.keys()].join(', '));
  assert.equal(validate(setAt(draft, 'network.hidden', parseFieldText(hidden, '64,,64'))).get('network.hidden'), "'64,,64' is not a list of numbers (e.g. 256, 256): give entries in [1, 4096] units");
});

test('the diff against the preset lists exactly the changed leaves', () => {
  const base = withDefaults({ env: { kind: 'cartpole' } });
  const draft = setAt(setAt(base, 'optim.lr', 0.001), 'network.hidden', [64, 64]);
  assert.deepEqual(configDiff(base, draft), [
    { path: 'network.hidden', from: [256, 256], to: [64, 64] },
    { path: 'optim.lr', from: 2.5e-4, to: 0.001 },
  ]);
  assert.deepEqual(configDiff(base, base), []);
});

test('the heads fields show their default, unit and range, and a cross-field refusal sits at the field it names', () => {
  const draft = withDefaults({ env: { kind: 'cartpole' } });
  const byPath = new Map(editorRows(draft).map((r) => [r.path, r]));
  const shown = (path: string) => {
    const f = byPath.get(path) as FieldSpec;
    return [f.kind, f.default, f.unit, f.range, f.options];
  };
  assert.deepEqual(shown('heads.main'), ['enum', 'q', undefined, undefined, ['q', 'c51', 'iqn']]);
  assert.deepEqual(shown('heads.c51.atoms'), ['integer', 51, 'atoms', '[2, 101]', undefined]);
  assert.deepEqual(shown('heads.c51.v_min'), ['number', -10, 'return units', '[-1e6, 1e6]', undefined]);
  assert.deepEqual(shown('heads.iqn.kappa'), ['number', 1, 'return units', '(0, 1e6]', undefined]);
  assert.deepEqual(shown('heads.iqn.share'), ['number', 0.2, 'fraction of grad_clip', '[0, 1)', undefined]);
  assert.deepEqual(shown('heads.ensemble.heads'), ['integer', 0, 'heads', '[0, 32]', undefined]);
  assert.deepEqual(shown('heads.ensemble.bootstrap_p'), ['number', 0.5, 'probability', '(0, 1]', undefined]);
  assert.deepEqual(shown('heads.cql.alpha'), ['number', 0, undefined, '[0, 1e6]', undefined]);
  assert.deepEqual(shown('heads.spectral.heads'), ['boolean', false, undefined, undefined, undefined]);
  for (const p of ['heads.iqn.n', 'heads.iqn.n_prime', 'heads.iqn.k', 'heads.iqn.embedding', 'heads.iqn.auxiliary', 'heads.ensemble.share', 'heads.cql.share', 'heads.spectral.sigma_max', 'heads.spectral.trunk'])
    assert.ok(byPath.has(p), p);
  const problems = validate(setAt(setAt(draft, 'heads.main', 'iqn'), 'heads.cql.alpha', 0.5));
  assert.deepEqual([...problems], [['heads.cql.alpha', "CQL needs a main head with deterministic Q-values: set heads.main to 'q' or 'c51', or heads.cql.alpha to 0 (got 0.5)"]]);
});

test('problems are said in the field\'s terms, never in the validator\'s (issue 26 item 11)', () => {
  const draft = withDefaults({ env: { kind: 'cartpole' } });
  const problem = (path: string, value: unknown) => validate(setAt(draft, path, value)).get(path);
  assert.equal((editorRows(draft).find((r) => r.path === 'schedule.steps_per_epoch') as FieldSpec).range, '[1, 1e9]');
  assert.equal(problem('schedule.steps_per_epoch', 1.5), 'must be a whole number in [1, 1e9] steps (got 1.5): use 1 or 2');
  assert.equal(problem('schedule.steps_per_epoch', 1e20), 'must be in [1, 1e9] steps (got 1e20): lower it to at most 1e9', 'not the safe-integer bound');
  assert.equal(problem('schedule.steps_per_epoch', 2e9), 'must be in [1, 1e9] steps (got 2e9): lower it to at most 1e9');
  assert.equal(problem('seed', 3e9), 'must be in [0, 2147483647] (got 3e9): lower it to at most 2147483647');
  assert.equal(problem('optim.lr', Infinity), 'must be a finite number in (0, 1] 1/step (got Infinity; a number as large as 1e999 overflows to Infinity)');
  assert.equal(problem('network.hidden', [64, 1.5]), 'entry 2: must be a whole number in [1, 4096] units (got 1.5): use 1 or 2');
  assert.equal(problem('network.hidden', [0.5]), 'entry 1: must be a whole number in [1, 4096] units (got 0.5): use 1', 'only the whole numbers in range');
  assert.equal(problem('env.num_envs', 0), 'must be in [1, 4096] envs (got 0): raise it to at least 1');
  assert.equal(problem('network.hidden', []), 'needs at least 1 entry');
  assert.equal(problem('network.hidden', [1, 2, 3, 4, 5, 6, 7, 8, 9]), 'takes at most 8 entries');
  assert.equal(problem('name', ''), 'must not be empty');
  assert.equal(problem('replay.sampler', 'ranked'), 'must be one of proportional, rank, uniform (got "ranked")');
  assert.equal(problem('name', 'a b'), 'use letters, digits, ".", "_" and "-" only (got "a b")', 'the schema\'s own words where it has them');
  for (const [path, value] of [['schedule.steps_per_epoch', 1.5], ['schedule.steps_per_epoch', 1e20], ['network.hidden', []], ['optim.lr', -1], ['replay.sampler', 'x'], ['seed', true]] as const)
    assert.doesNotMatch(problem(path, value)!, /Invalid input|expected|received|Too (big|small)|9007199254740991|>=|<=/, `${path} = ${JSON.stringify(value)}`);
  assert.deepEqual([1e9, 1e-6, 2.5e-4, 0.05, 4096, 2147483647, 0].map(numberText), ['1e9', '1e-6', '2.5e-4', '0.05', '4096', '2147483647', '0']);
});

test('the editor and `npm run train --config` say the same thing about a field out of range: its path, its range with its unit and what to change', () => {
  /** What the CLI prints under "invalid config:" for `input`, one line per field. */
  const cliLines = (input: unknown) => {
    try {
      parseRunConfig(input);
    } catch (e) {
      if (e instanceof ConfigError) return e.problems;
      throw e;
    }
    return [];
  };
  const editorLines = (input: unknown) => [...validate(input)].map(([path, message]) => `${path}: ${message}`);
  const bad: RunConfigInput = { env: { kind: 'cartpole' }, optim: { lr: -1, batch_size: 0 } };
  assert.deepEqual(cliLines(bad), [
    'optim.lr: must be in (0, 1] 1/step (got -1): raise it above 0',
    'optim.batch_size: must be in [1, 65536] transitions (got 0): raise it to at least 1',
  ]);
  assert.deepEqual(editorLines(bad), cliLines(bad));
  const more = [
    { env: { kind: 'trading', data: 'x.csv', lags: 17, num_envs: 0, max_position: 20 } },
    { env: { kind: 'cartpole', num_envs: 1.5 }, network: { hidden: [64, 0] }, schedule: { steps_per_epoch: 1e20 }, heads: { iqn: { kappa: 0 } } },
    { env: { kind: 'cartpole' }, optim: { gamma: Infinity, huber_delta: '1', batchsize: 3 }, replay: { sampler: 'ranked' }, exploration: { eps_start: 0.1, eps_end: 0.5 } },
  ];
  for (const input of more) {
    assert.ok(cliLines(input).length >= 3, JSON.stringify(input));
    assert.deepEqual(editorLines(input), cliLines(input), JSON.stringify(input));
  }
});

test('schedule.target_return is a number field that also takes none: empty is none (off), a number is the target, text is refused in the shared words', () => {
  const draft = withDefaults({ env: { kind: 'cartpole' } });
  const field = editorRows(draft).find((r) => r.path === 'schedule.target_return') as FieldSpec;
  assert.deepEqual([field.kind, field.nullable, field.default, field.unit, field.range], ['number', true, null, 'return units', undefined]);
  assert.match(field.description!, /StopTrainingOnRewardThreshold/);
  assert.equal(fieldHelpText(field), 'default none (leave empty) · in return units');
  assert.equal(fieldText(null), '', 'none shows as an empty field');
  assert.deepEqual(['', '  ', '475', '-12.5', 'abc'].map((t) => parseFieldText(field, t)), [null, null, 475, -12.5, 'abc']);
  assert.equal(validate(setAt(draft, 'schedule.target_return', parseFieldText(field, '475'))).size, 0);
  assert.equal(validate(setAt(draft, 'schedule.target_return', parseFieldText(field, ''))).size, 0);
  assert.deepEqual([...validate(setAt(draft, 'schedule.target_return', parseFieldText(field, 'abc')))], [['schedule.target_return', "'abc' is not a number"]]);
  assert.deepEqual(configDiff(draft, setAt(draft, 'schedule.target_return', 475)), [{ path: 'schedule.target_return', from: null, to: 475 }]);
  // Other fields keep their help line; an empty number field that takes no null stays text, refused at the field.
  const lr = editorRows(draft).find((r) => r.path === 'optim.lr') as FieldSpec;
  assert.equal(lr.nullable, undefined);
  assert.equal(fieldHelpText(lr), 'default 0.00025 1/step · range (0, 1]');
  assert.equal(parseFieldText(lr, ''), '');
});

test('an optional field (optim.lr_end) typed then emptied is left out of the draft, so of the config sent on Start and of a saved preset; its help line says what that means', () => {
  // A preset that sets it, as the bundled CartPole presets do.
  const preset = withDefaults({ env: { kind: 'cartpole' }, optim: { lr_end: 5e-5, lr_decay_steps: 1000 } });
  const field = editorRows(preset).find((r) => r.path === 'optim.lr_end') as FieldSpec;
  assert.deepEqual([field.kind, field.optional, field.absent, field.default, field.unit, field.range], ['number', true, 'lr throughout', undefined, '1/step', '(0, 1]']);
  assert.equal(fieldHelpText(field), 'default lr throughout (leave empty) · in 1/step · range (0, 1]');
  assert.deepEqual(['', '  ', '1e-5', 'abc'].map((t) => parseFieldText(field, t)), [undefined, undefined, 1e-5, 'abc']);
  const typed = setAt(preset, 'optim.lr_end', parseFieldText(field, '1e-5'));
  assert.equal(getAt(typed, 'optim.lr_end'), 1e-5);
  const cleared = setAt(typed, 'optim.lr_end', parseFieldText(field, ''));
  assert.deepEqual(Object.keys(cleared.optim).includes('lr_end'), false, 'no key, not a key holding undefined');
  assert.equal(fieldText(getAt(cleared, 'optim.lr_end')), '', 'shows as an empty field');
  assert.equal(validate(typed).size, 0);
  assert.equal(validate(cleared).size, 0);
  assert.deepEqual(configDiff(preset, cleared), [{ path: 'optim.lr_end', from: 5e-5, to: undefined }]);
  // The host parses what Start sends; absent stays absent, which the trainer reads as lr throughout.
  const sent = parseRunConfig(JSON.parse(JSON.stringify(cleared)));
  assert.deepEqual([Object.keys(sent.optim).includes('lr_end'), sent.optim.lr, sent.optim.lr_decay_steps], [false, 2.5e-4, 1000]);
  assert.deepEqual([...validate(setAt(preset, 'optim.lr_end', parseFieldText(field, 'abc')))], [['optim.lr_end', "'abc' is not a number: give one in (0, 1] 1/step"]]);
  // A nullable field still empties to null, kept as a key.
  const target = editorRows(preset).find((r) => r.path === 'schedule.target_return') as FieldSpec;
  const none = setAt(setAt(preset, 'schedule.target_return', 475), 'schedule.target_return', parseFieldText(target, ''));
  assert.deepEqual([target.optional, Object.keys(none.schedule).includes('target_return'), none.schedule.target_return, validate(none).size], [undefined, true, null, 0]);
});

test('every optional field of the schema (no default, not required) is a text field that empties to absent and says what absent means; required fields without a default are not optional', () => {
  const cartpole = withDefaults({ env: { kind: 'cartpole' } });
  const trading = setAt(cartpole, 'env', variantDefaults('env', 'trading'));
  const optional = [cartpole, trading].flatMap((d) => editorRows(d).filter((r): r is FieldSpec => r.kind !== 'variant' && !!r.optional));
  assert.deepEqual([...new Set(optional.map((f) => f.path))], ['optim.lr_end']);
  for (const f of optional) {
    assert.ok(['number', 'integer', 'string', 'integer-list'].includes(f.kind), `${f.path}: an empty ${f.kind} input cannot say absent`);
    assert.ok(f.absent, `${f.path}: its schema meta names what absent means (absent: ...)`);
    assert.equal(parseFieldText(f, ''), undefined, f.path);
  }
  const data = editorRows(trading).find((r) => r.path === 'env.data') as FieldSpec;
  assert.deepEqual([data.kind, data.optional, parseFieldText(data, '')], ['string', undefined, ''], 'env.data is required: empty is refused at the field');
  assert.equal(validate(setAt(trading, 'env.data', '')).get('env.data'), 'must not be empty');
});
