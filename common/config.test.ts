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

test('an invalid config names each field, its value, the allowed range with its unit and what to change', () => {
  assert.throws(
    () => parseRunConfig({ env: { kind: 'trading', data: 'x.csv', lags: 99 }, optim: { lr: -0.001, batch_size: 0, n_step: 2.5, huber_delta: '1' }, replay: { alpha: 'high' }, schedule: { steps_per_epoch: 1e20 } }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.deepEqual(e.problems.sort(), [
        'env.lags: must be in [1, 16] bars (got 99): lower it to at most 16',
        'optim.batch_size: must be in [1, 65536] transitions (got 0): raise it to at least 1',
        'optim.huber_delta: must be a number, not the text "1": drop the quotes',
        'optim.lr: must be in (0, 1] 1/step (got -0.001): raise it above 0',
        'optim.n_step: must be a whole number in [1, 32] env steps (got 2.5): use 2 or 3',
        "replay.alpha: 'high' is not a number: give one in [0, 1]",
        'schedule.steps_per_epoch: must be in [1, 1e9] steps (got 1e20): lower it to at most 1e9', // once, and not the safe-integer bound zod reports too
      ]);
      assert.doesNotMatch(e.message, /Invalid input|expected|received|Too (big|small)|>=|<=/, 'never the validator\'s own words');
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
    assert.match(text, /env\.max_position: must be in \[0\.01, 10\] x equity \(got 20\): lower it to at most 10/);
    assert.match(text, /env\.gap_policy: must be one of hold, flat \(got "close"\)/);
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
    assert.match(text, /env\.action_space: must be one of target, step \(got "delta"\)/);
    assert.match(text, /env\.decision_interval: must be in \[1, 100000\] bars \(got 0\): raise it to at least 1/);
    assert.match(text, /env\.financing_rate: must be in \[0, 1\] fraction per year \(got 2\): lower it to at most 1/);
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
      assert.match(text, /optim\.lr: must be a finite number in \(0, 1\] 1\/step \(got Infinity; a number as large as 1e999 overflows to Infinity\)/);
      assert.match(text, /optim\.gamma: must be a finite number in \[0, 1\] \(got NaN\)/);
      return true;
    },
  );
});

test('schedule.target_return is off (null) by default, takes any finite number or null, and refuses anything else in the shared words', () => {
  assert.equal(parseRunConfig({ env: { kind: 'cartpole' } }).schedule.target_return, null);
  assert.equal(parseRunConfig({ env: { kind: 'cartpole' }, schedule: { target_return: 475 } }).schedule.target_return, 475);
  assert.equal(parseRunConfig({ env: { kind: 'cartpole' }, schedule: { target_return: null } }).schedule.target_return, null);
  assert.equal(parseRunConfig({ env: { kind: 'trading', data: 'x.csv' }, schedule: { target_return: -12.5 } }).schedule.target_return, -12.5, 'a trading return may be negative');
  const problem = (target_return: unknown) => {
    try {
      parseRunConfig({ env: { kind: 'cartpole' }, schedule: { target_return } });
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e.problems;
    }
    return assert.fail(`${JSON.stringify(target_return)} was accepted`);
  };
  assert.deepEqual(problem('solved'), ["schedule.target_return: 'solved' is not a number"]);
  assert.deepEqual(problem('475'), ['schedule.target_return: must be a number, not the text "475": drop the quotes']);
  assert.deepEqual(problem(true), ['schedule.target_return: must be a number (got true)']);
  assert.deepEqual(problem(Infinity), ['schedule.target_return: must be a finite number (got Infinity; a number as large as 1e999 overflows to Infinity)']);
});
