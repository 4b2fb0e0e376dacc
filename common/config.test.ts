import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig, ConfigError } from './config.ts';

test('a minimal config gets every default filled in', () => {
  const c = parseRunConfig({ env: { kind: 'cartpole' } });
  assert.equal(c.replay.sampler, 'proportional');
  assert.equal(c.replay.alpha, 0.6);
  assert.deepEqual(c.network.hidden, [256, 256]);
  assert.deepEqual(c.optim.target_update, { kind: 'hard', interval: 1000 });
  assert.equal(c.env.kind === 'cartpole' && c.env.max_episode_steps, 500);
});

test('an invalid config names each field, its value and the allowed range', () => {
  assert.throws(
    () => parseRunConfig({ env: { kind: 'trading', data: 'x.csv', lags: 99 }, optim: { lr: -0.001 }, replay: { alpha: 'high' } }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      const text = e.problems.join('\n');
      assert.match(text, /env\.lags: .*<=16.*\(got 99\)/);
      assert.match(text, /optim\.lr: .*>0.*\(got -0\.001\)/);
      assert.match(text, /replay\.alpha: .*number.*\(got "high"\)/);
      assert.equal(e.problems.length, 3);
      return true;
    },
  );
});

test('cross-field rules are checked: eps_end above eps_start and a batch larger than the buffer', () => {
  assert.throws(
    () => parseRunConfig({ env: { kind: 'cartpole' }, exploration: { eps_start: 0.1, eps_end: 0.5 }, replay: { capacity: 100 }, optim: { batch_size: 128 } }),
    /exploration\.eps_end: eps_end \(0\.5\) must not exceed eps_start \(0\.1\)[\s\S]*optim\.batch_size: batch_size \(128\) must not exceed replay\.capacity \(100\)/,
  );
});

test('a misspelled or unknown key is refused by name instead of silently taking the default, with the name meant or the names there', () => {
  assert.throws(
    () => parseRunConfig({ env: { kind: 'cartpole' }, optim: { learning_rate: 0.1, batchsize: 64, target_update: { kind: 'hard', intervall: 5 } }, schedul: { epochs: 2 } }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.deepEqual(e.problems.sort(), [
        'optim.batchsize: unknown field (misspelled?); did you mean optim.batch_size?',
        'optim.learning_rate: unknown field (misspelled?): optim has lr, lr_end, lr_decay_steps, adam_eps, grad_clip, batch_size, gamma, n_step, double_dqn, huber_delta, target_update',
        'optim.target_update.intervall: unknown field (misspelled?); did you mean optim.target_update.interval?',
        'schedul: unknown field (misspelled?); did you mean schedule?',
      ]);
      return true;
    },
  );
});

test('a trading config cannot mislead: n_actions must be odd (a flat action), max_position is a bounded multiple of equity, gap_policy defaults to hold', () => {
  const c = parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } });
  assert.ok(c.env.kind === 'trading' && c.env.gap_policy === 'hold' && c.env.n_actions === 45 && c.env.max_position === 1);
  assert.throws(() => parseRunConfig({ env: { kind: 'trading', data: 'x.csv', n_actions: 44, max_position: 20, gap_policy: 'close' } }), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    const text = e.problems.join('\n');
    assert.match(text, /env\.n_actions: must be odd so that the middle action is the flat position \(0\); use 43 or 45 \(got 44\)/);
    assert.match(text, /env\.max_position: .*<=10.*\(got 20\)/);
    assert.match(text, /env\.gap_policy: .*"hold"\|"flat".*\(got "close"\)/);
    return true;
  });
  assert.throws(() => parseRunConfig({ env: { kind: 'trading', data: 'x.csv', n_actions: 8 } }), /env\.n_actions: must be odd so that the middle action is the flat position \(0\); use 7 or 9 \(got 8\)/);
  assert.equal(parseRunConfig({ env: { kind: 'trading', data: 'x.csv', n_actions: 3, max_position: 10, gap_policy: 'flat' } }).env.kind, 'trading');
});

test('trading spans and no-trade options: defaults keep the old split and actions; inconsistent spans are refused with one line each', () => {
  const c = parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } });
  assert.ok(c.env.kind === 'trading');
  assert.deepEqual(
    [c.env.test_fraction, c.env.embargo_bars, c.env.folds, c.env.fold, c.env.decision_interval, c.env.change_penalty_bps, c.env.action_space, c.env.financing_rate],
    [0, 0, 1, 0, 1, 0, 'target', 0],
  );
  assert.throws(() => parseRunConfig({ env: { kind: 'trading', data: 'x.csv', validation_fraction: 0.5, test_fraction: 0.5, folds: 2, fold: 2 } }), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.deepEqual(e.problems, [
      'env.test_fraction: validation_fraction + test_fraction (0.5 + 0.5) must be below 1: the rest is the training span (got 0.5)',
      'env.fold: must be below folds (2): folds are numbered 0 to 1 (got 2)',
    ]);
    return true;
  });
  assert.throws(() => parseRunConfig({ env: { kind: 'trading', data: 'x.csv', folds: 3 } }), /env\.folds: walk-forward \(folds > 1\) needs a test span: set test_fraction > 0/);
  assert.throws(() => parseRunConfig({ env: { kind: 'trading', data: 'x.csv', action_space: 'delta', decision_interval: 0, financing_rate: 2 } }), (e: unknown) => {
    const text = (e as ConfigError).problems.join('\n');
    assert.match(text, /env\.action_space: .*"target"\|"step".*\(got "delta"\)/);
    assert.match(text, /env\.decision_interval: .*>=1.*\(got 0\)/);
    assert.match(text, /env\.financing_rate: .*<=1.*\(got 2\)/);
    return true;
  });
});

test('a number that is not finite (a JSON 1e999 overflows to Infinity) is named as such, not shown as null', () => {
  assert.throws(
    () => parseRunConfig({ env: { kind: 'cartpole' }, optim: { lr: Infinity, gamma: NaN } }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      const text = e.problems.join('\n');
      assert.doesNotMatch(text, /null/);
      assert.match(text, /optim\.lr: must be a finite number \(got Infinity; /);
      assert.match(text, /optim\.gamma: must be a finite number \(got NaN; /);
      return true;
    },
  );
});
