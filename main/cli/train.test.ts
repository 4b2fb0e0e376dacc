// The headless CLI end to end on the real native trainer: JSON summary, run directory,
// checkpoints, resume, bad input, and the CartPole preset actually solving CartPole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAddon } from '../../native/addon.ts';
import { train } from './run-cli.ts';

test('trading-6e for one short epoch prints the eval object and leaves config.json and a checkpoint; --resume continues the step count', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const first = train(['--preset', 'trading-6e', '--backend', 'cpu', '--epochs', '1', '--steps-per-epoch', '150', '--runs-dir', runs, '--json']);
  assert.equal(first.code, 0, first.stderr);
  const j = first.json!;
  for (const key of ['preset', 'backend', 'replay', 'steps', 'env_steps', 'wall_s', 'steps_per_s', 'eval_mean_return', 'eval_episodes', 'run_dir']) assert.ok(key in j, `missing ${key}`);
  assert.equal(j.preset, 'trading-6e');
  assert.equal(j.backend, 'cpu');
  assert.equal(j.steps, 150);
  const ev = j.eval as Record<string, number>;
  for (const key of ['return', 'sharpe', 'max_drawdown', 'buy_and_hold_return', 'buy_and_hold_sharpe']) assert.ok(Number.isFinite(ev[key]), `eval.${key} = ${ev[key]}`);
  assert.ok(ev.max_drawdown! >= 0 && ev.max_drawdown! <= 1);
  const runDir = j.run_dir as string;
  assert.ok(existsSync(join(runDir, 'config.json')));
  assert.deepEqual(readdirSync(join(runDir, 'checkpoints')), ['epoch-1']);

  const second = train(['--resume', runDir, '--epochs', '2', '--json']);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.json!.steps, 300, 'resume continues from step 150 to the end of epoch 2');
  assert.equal(second.json!.run_dir, runDir);
  assert.deepEqual(readdirSync(join(runDir, 'checkpoints')).sort(), ['epoch-1', 'epoch-2']);
});

test('bad input is refused with a message that says what to fix, and no run directory is made', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const unknown = train(['--preset', 'pong', '--runs-dir', runs]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /unknown preset 'pong': available presets are cartpole, trading-6e, trading-spy/);
  const both = train(['--preset', 'cartpole', '--config', 'x.json']);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /give exactly one of --preset NAME, --config FILE or --resume RUN_DIR/);
  const epochs = train(['--preset', 'cartpole', '--epochs', '0']);
  assert.equal(epochs.code, 1);
  assert.match(epochs.stderr, /--epochs must be a positive integer, got '0'/);
  assert.deepEqual(readdirSync(runs), []);
});

test('the cartpole preset solves CartPole: greedy mean return >= 475 over 100 evaluation episodes', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = train(['--preset', 'cartpole', '--backend', 'cpu', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json!.eval_episodes, 100);
  assert.ok((r.json!.eval_mean_return as number) >= 475, `eval_mean_return ${r.json!.eval_mean_return}`);
});

test('--backend cuda on a machine without a usable GPU exits non-zero and says why, leaving no run directory', (t) => {
  const info = loadAddon().backendInfo();
  if (info.cudaAvailable) return t.skip('this machine has a GPU: the refusal is for machines without one');
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = train(['--preset', 'cartpole', '--backend', 'cuda', '--epochs', '1', '--steps-per-epoch', '10', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`backend 'cuda' was asked for, but ${info.reason}: use backend 'auto' or 'cpu'`));
  assert.deepEqual(readdirSync(runs), []);
});
