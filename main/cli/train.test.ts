// The headless CLI end to end on the real native trainer: JSON summary, run directory,
// checkpoints, resume, bad input, and the CartPole preset actually solving CartPole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadAddon } from '../../native/addon.ts';
import { evaluate, train, trainInterrupted } from './run-cli.ts';

test('trading-6e for one short epoch prints the eval object and leaves config.json and a checkpoint; --resume continues the step count', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const t0 = performance.now();
  const first = train(['--preset', 'trading-6e', '--backend', 'cpu', '--epochs', '1', '--steps-per-epoch', '150', '--runs-dir', runs, '--json']);
  const processWallS = (performance.now() - t0) / 1000;
  assert.equal(first.code, 0, first.stderr);
  const j = first.json!;
  for (const key of ['preset', 'config', 'resumed_from', 'seed', 'backend', 'replay', 'steps', 'env_steps', 'wall_s', 'steps_per_s', 'last_epoch_steps_per_s', 'eval_mean_reward_bps', 'eval_episodes', 'run_dir']) assert.ok(key in j, `missing ${key}`);
  assert.equal(j.preset, 'trading-6e');
  assert.equal(j.config, null);
  assert.equal(j.resumed_from, null);
  const rate = j.steps_per_s as number;
  assert.ok(rate >= 150 / processWallS, `steps_per_s ${rate}: 150 steps within the ${processWallS} s the process ran`);
  assert.ok(rate <= (j.last_epoch_steps_per_s as number), 'the whole-run average includes evaluation and checkpointing, so it is at most the epoch rate');
  assert.equal(j.backend, 'cpu');
  assert.equal(j.steps, 150);
  const statusLines = first.stderr.split('\n').filter((l) => l.startsWith('step '));
  assert.equal(new Set(statusLines).size, statusLines.length, `a status line printed twice (the last epoch's validation and test lines each reprinted it):\n${first.stderr}`);
  const ev = j.eval as Record<string, number>;
  for (const key of ['return', 'return_simple', 'sharpe', 'sharpe_se', 'max_drawdown', 'trade_fraction', 'bars_per_year', 'buy_and_hold_return', 'buy_and_hold_sharpe']) assert.ok(Number.isFinite(ev[key]), `eval.${key} = ${ev[key]}`);
  assert.ok(Math.abs((j.eval_mean_reward_bps as number) - 1e4 * ev.return_simple!) < 1e-3 * (1 + Math.abs(j.eval_mean_reward_bps as number)), 'one walk: the mean reward is the simple return in bp');
  assert.ok(ev.max_drawdown! >= 0 && ev.max_drawdown! <= 1);
  const runDir = j.run_dir as string;
  assert.ok(existsSync(join(runDir, 'config.json')));
  assert.deepEqual(readdirSync(join(runDir, 'checkpoints')), ['epoch-1']);

  const second = train(['--resume', runDir, '--epochs', '2', '--json']);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.json!.steps, 300, 'resume continues from step 150 to the end of epoch 2');
  assert.equal(second.json!.run_dir, runDir);
  assert.equal(second.json!.preset, null);
  assert.equal(second.json!.resumed_from, runDir);
  assert.ok((second.json!.steps_per_s as number) > 0);
  assert.deepEqual(readdirSync(join(runDir, 'checkpoints')).sort(), ['epoch-1', 'epoch-2']);
  // The held-out test span: walked at the end of each invocation that finished the run, labelled apart.
  const t = second.json!.test as { span: { name: string; first_bar: string }; return: number; turnover: number };
  assert.equal(t.span.name, 'test');
  assert.equal((second.json!.eval as { span: { name: string } }).span.name, 'validation');
  assert.ok(t.span.first_bar > (second.json!.eval as { span: { last_bar: string } }).span.last_bar, 'the test span comes after validation');
  assert.ok(Number.isFinite(t.return) && t.turnover >= 0);
  // On demand: the last checkpoint on the test span gives the figures the run reported.
  const again = evaluate([runDir, '--checkpoint', 'latest', '--span', 'test', '--json']);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual([again.json!.checkpoint, again.json!.span, (again.json!.eval as { return: number }).return], ['epoch-2', 'test', t.return]);
  assert.match(evaluate([runDir, '--span', 'train']).stderr, /--span must be test or validation, got 'train'/);
});

test('--walk-forward trains every fold into its own run and pools their test spans', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const config = join(runs, 'wf.json');
  const preset = JSON.parse(readFileSync('resources/presets/trading-6e.json', 'utf8')) as { env: Record<string, unknown> };
  writeFileSync(config, JSON.stringify({ ...preset, name: 'wf', env: { ...preset.env, validation_fraction: 0.1, test_fraction: 0.1, folds: 2 } }));
  const r = train(['--config', config, '--backend', 'cpu', '--epochs', '1', '--steps-per-epoch', '40', '--runs-dir', runs, '--walk-forward', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = r.json as { folds: { fold: number; run_dir: string; test: { return: number; span: { first_bar: string; last_bar: string } } }[]; pooled_test: { folds: number; return: number }; summary_file: string };
  assert.deepEqual(j.folds.map((f) => [f.fold, f.run_dir.replace(/^.*\d{8}-\d{6}-/, '')]), [[0, 'wf-fold0'], [1, 'wf-fold1']]);
  assert.ok(j.folds[0]!.test.span.last_bar < j.folds[1]!.test.span.first_bar, 'fold 1 tests the span after fold 0\'s');
  assert.equal(j.pooled_test.folds, 2);
  assert.ok(Math.abs(j.pooled_test.return - ((1 + j.folds[0]!.test.return) * (1 + j.folds[1]!.test.return) - 1)) < 1e-12);
  assert.deepEqual(JSON.parse(readFileSync(j.summary_file, 'utf8')), j);
  assert.deepEqual(r.stderr.trimEnd().split('\n').slice(-2), [`walk-forward summary over 2 folds: ${j.summary_file}`, `view: npm run serve -- --runs-dir ${runs}, then open the runs ${j.folds.map((f) => basename(f.run_dir)).join(', ')} in the run history`]);
});

test('trading-6e-full trains an epoch with every part on (C51, auxiliary IQN, ensemble, CQL, spectral normalisation): no NaN, every part reports its scalars', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = train(['--preset', 'trading-6e-full', '--backend', 'cpu', '--epochs', '1', '--steps-per-epoch', '300', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json!.state, 'finished');
  assert.equal(r.json!.steps, 300);
  assert.ok(Number.isFinite(r.json!.eval_mean_reward_bps as number));
  const records = readFileSync(join(r.json!.run_dir as string, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; step?: number; values?: Record<string, number | string> });
  const scalars = records.filter((x) => x.type === 'scalars');
  const last = new Map<string, number | string>();
  for (const x of scalars) for (const [k, v] of Object.entries(x.values!)) last.set(k, v);
  for (const part of ['main', 'iqn', 'ensemble', 'cql'])
    for (const field of ['loss', 'grad_norm', 'grad_norm_clipped']) {
      const v = last.get(`heads/${part}_${field}`);
      assert.ok(typeof v === 'number' && Number.isFinite(v) && v > 0, `heads/${part}_${field} = ${v}`);
    }
  // Each auxiliary part's clipped norm stays within its share of optim.grad_clip (10): iqn 0.2, ensemble 0.1, cql 0.1.
  for (const [part, share] of [['iqn', 0.2], ['ensemble', 0.1], ['cql', 0.1], ['main', 0.6]] as const)
    assert.ok((last.get(`heads/${part}_grad_norm_clipped`) as number) <= share * 10 * (1 + 1e-6), `${part}: clipped norm within ${share} x grad_clip`);
  const sigma = last.get('heads/sigma_max');
  assert.ok(typeof sigma === 'number' && sigma > 0, `heads/sigma_max = ${sigma}`);
  assert.ok(typeof last.get('heads/ensemble_disagreement') === 'number', 'ensemble disagreement at the Q-stats probe');
  const dist = Array.from({ length: 51 }, (_, j) => last.get(`heads/c51_dist/${j}`) as number);
  assert.ok(dist.every((p) => Number.isFinite(p) && p >= 0), 'the C51 greedy-action distribution');
  assert.ok(Math.abs(dist.reduce((a, b) => a + b, 0) - 1) < 1e-6, 'sums to 1');
  for (const x of scalars) for (const [k, v] of Object.entries(x.values!)) assert.ok(typeof v === 'number', `${k} at step ${x.step} is ${v}`);
});

test('bad input is refused with a message that says what to fix, exit 2 (a usage error) whatever it is, and no run directory is made', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const refusal = (args: string[]) => {
    const r = train([...args, '--runs-dir', runs]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    return r.stderr;
  };
  assert.match(refusal(['--preset', 'pong']), /^error: unknown preset 'pong': available presets are cartpole, cartpole-c51, cartpole-iqn, trading-6e, trading-6e-full, trading-spy\n$/);
  assert.match(refusal(['--preset', 'cartpol']), /^error: unknown preset 'cartpol': did you mean cartpole\? available presets are cartpole, /);
  assert.match(refusal(['--preset', 'cartpole', '--config', 'x.json']), /give exactly one of --preset NAME, --config FILE or --resume RUN_DIR/);
  assert.match(refusal(['--preset', 'cartpole', '--epochs', '0']), /--epochs must be a positive integer, got '0'/);
  assert.match(refusal(['--preset', 'cartpole', '--epoch', '3']), /unknown option '--epoch'\n\(Did you mean --epochs\?\)/);
  assert.equal(refusal(['--config', join(runs, 'missing.json')]), `error: config file not found: ${join(runs, 'missing.json')}\n`);
  assert.equal(refusal(['--config', runs]), `error: config file is a folder, not a file: ${runs}\n`);
  const csv = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'trading.json');
  writeFileSync(csv, JSON.stringify({ env: { kind: 'trading', data: join(runs, 'nope.csv') }, backend: 'cpu' }));
  assert.equal(refusal(['--config', csv]), `error: OHLCV file not found: ${join(runs, 'nope.csv')}\n`);
  assert.match(refusal(['--resume', join(runs, 'nope')]), /is not a run directory \(no config\.json\)/);
  assert.deepEqual(readdirSync(runs), []);
});

test('the cartpole preset solves CartPole: it stops at the first epoch whose greedy mean return over 100 evaluation episodes is >= 475, and says so', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = train(['--preset', 'cartpole', '--backend', 'cpu', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json!.state, 'finished');
  assert.equal(r.json!.eval_episodes, 100);
  const ret = r.json!.eval_mean_return as number;
  assert.ok(ret >= 475, `eval_mean_return ${ret}`);
  // schedule.target_return 475: the run ended at the epoch that reached it (the 10th at the latest).
  const t = r.json!.stopped_at_target as { target_return: number; epoch: number; epochs: number; eval_mean_return: number };
  assert.deepEqual([t.target_return, t.epochs, t.eval_mean_return], [475, 10, ret]);
  assert.equal(r.json!.steps, t.epoch * 5000, `${t.epoch} epochs of 5000 steps`);
  const epochs = readFileSync(join(r.json!.run_dir as string, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; eval_mean_return: number }).filter((x) => x.type === 'epoch');
  assert.equal(epochs.length, t.epoch);
  assert.ok(epochs.slice(0, -1).every((e) => e.eval_mean_return < 475), `no earlier epoch reached it: ${epochs.map((e) => e.eval_mean_return).join(', ')}`);
  // The last lines: how it ended, then where it went and how to see it; no resume (a run at its target refuses one).
  const lines = r.stderr.trimEnd().split('\n');
  const end = lines.findIndex((l) => l.startsWith('finished'));
  assert.match(lines[end]!, new RegExp(`^finished at the target return: epoch ${t.epoch} of 10, evaluation ${ret.toFixed(1)} >= 475, after ${t.epoch * 5000} steps, `));
  const runDir = r.json!.run_dir as string;
  assert.deepEqual(lines.slice(end + 1), [`run folder: ${runDir}`, `view: npm run serve -- --runs-dir ${runs}, then open the URL it prints with &run=${basename(runDir)} added`]);
});

/** A CartPole config that trains until stopped (one epoch of a million steps), with small batches. */
function endlessConfig(dir: string): string {
  const file = join(dir, 'endless.json');
  writeFileSync(file, JSON.stringify({ name: 'endless', env: { kind: 'cartpole' }, backend: 'cpu', schedule: { epochs: 1, steps_per_epoch: 1_000_000, learning_starts: 64, eval_episodes: 1 }, optim: { batch_size: 32 } }));
  return file;
}

test('a run stopped by Ctrl-C ends with its folder and the resume command, and that command resumes it', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = await trainInterrupted(['--config', endlessConfig(runs), '--runs-dir', runs, '--json'], /^step \d+\/1000000 \|/);
  assert.equal(r.signalled, true, r.stderr);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json!.state, 'stopped');
  const runDir = r.json!.run_dir as string;
  const steps = r.json!.steps as number;
  const last = r.stderr.trimEnd().split('\n').slice(-4);
  assert.match(last[0]!, new RegExp(`^stopped after ${steps} steps, `));
  assert.deepEqual(last.slice(1), [
    `run folder: ${runDir}`,
    `resume: npm run train -- --resume ${runDir}`,
    `view: npm run serve -- --runs-dir ${runs}, then open the URL it prints with &run=${basename(runDir)} added`,
  ]);
  const resumeArgs = last[2]!.replace(/^resume: npm run train -- /, '').split(' ');
  const resumed = train([...resumeArgs, '--steps-per-epoch', String(steps + 10), '--json']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual([resumed.json!.state, resumed.json!.steps, resumed.json!.run_dir], ['finished', steps + 10, runDir]);
});

test('a seed group stopped by Ctrl-C before any evaluation exits 0 without a summary, offering the stopped seed its resume', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = await trainInterrupted(['--config', endlessConfig(runs), '--seeds', '2', '--seed', '3', '--runs-dir', runs, '--json'], /^step \d+\/1000000 \|/);
  assert.equal(r.code, 0, r.stderr);
  const j = r.json as { seeds: number[]; runs: { seed: number; state: string; run_dir: string }[]; summary_file: string | null };
  assert.deepEqual([j.seeds, j.runs.map((x) => [x.seed, x.state]), j.summary_file], [[3, 4], [[3, 'stopped']], null], 'seed 4 never started');
  const group = JSON.parse(readFileSync(join(j.runs[0]!.run_dir, 'group.json'), 'utf8')).group as string;
  assert.deepEqual(r.stderr.trimEnd().split('\n').slice(-3), [
    'no summary over seeds: stopped before any seed finished an evaluation',
    `resume seed 3: npm run train -- --resume ${j.runs[0]!.run_dir}`,
    `view: npm run serve -- --runs-dir ${runs}, then open the group ${group} in the run history`,
  ]);
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

test('--backend cuda with a head the GPU learner lacks exits non-zero with one line naming the head, on any machine, leaving no run directory', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = train(['--preset', 'cartpole-c51', '--backend', 'cuda', '--epochs', '1', '--steps-per-epoch', '10', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^error: backend 'cuda' was asked for, but the GPU learner has no C51 head yet \(heads\.main = c51\)(; [^\n]+)?: use backend 'auto' or 'cpu' to train on the CPU\n$/);
  assert.deepEqual(readdirSync(runs), []);
});

test('--config FILE is named in the summary (preset null); a config that is not JSON names the file', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const file = join(runs, 'my-config.json');
  writeFileSync(file, JSON.stringify({ name: 'cfg', env: { kind: 'cartpole' }, backend: 'cpu', schedule: { epochs: 1, steps_per_epoch: 20, learning_starts: 64, eval_episodes: 1 }, optim: { batch_size: 32 } }));
  const r = train(['--config', file, '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json!.preset, null);
  assert.equal(r.json!.config, file);
  assert.equal(r.json!.resumed_from, null);
  assert.equal(r.json!.steps, 20);
  writeFileSync(file, '{"env": ');
  const bad = train(['--config', file, '--runs-dir', runs]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, new RegExp(`${file} is not valid JSON`));
  const runDir = r.json!.run_dir as string;
  writeFileSync(join(runDir, 'config.json'), readFileSync(join(runDir, 'config.json'), 'utf8').slice(0, 10));
  const resume = train(['--resume', runDir, '--epochs', '2']);
  assert.equal(resume.code, 2);
  assert.match(resume.stderr, new RegExp(`${join(runDir, 'config.json')} is not valid JSON`));
});

test('--config with values out of range is refused in the config editor\'s words: the field, its range with its unit and what to change; exit 2, no run directory', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'bad.json');
  writeFileSync(file, JSON.stringify({ env: { kind: 'cartpole' }, optim: { lr: -1, batch_size: 0 } }));
  const r = train(['--config', file, '--runs-dir', runs]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, [
    'error: invalid config:',
    '  optim.lr: must be in (0, 1] 1/step (got -1): raise it above 0',
    '  optim.batch_size: must be in [1, 65536] transitions (got 0): raise it to at least 1',
    '',
  ].join('\n'));
  assert.deepEqual(readdirSync(runs), []);
});

test('a runs folder that is not writable is refused with the cause (permission denied), not a bare error code', (t) => {
  const asRoot = process.getuid?.() === 0;
  // root writes anywhere: run the CLI as the unprivileged user 'nobody' through setpriv.
  if (asRoot && spawnSync('setpriv', ['--version']).status !== 0) return t.skip('running as root without setpriv');
  const parent = mkdtempSync(join(tmpdir(), 'ro-'));
  chmodSync(parent, 0o755);
  const runs = join(parent, 'runs');
  mkdirSync(runs, { mode: 0o555 });
  chmodSync(runs, 0o555);
  const wrapper = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  const r = train(['--preset', 'cartpole', '--backend', 'cpu', '--epochs', '1', '--steps-per-epoch', '10', '--runs-dir', runs], { ...process.env, HOME: parent }, wrapper);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`error: cannot create a run directory in ${runs}: permission denied \\(the folder is not writable by this user\\) \\[EACCES`));
  assert.deepEqual(readdirSync(runs), []);
});

test('a runs folder under /proc is refused at once, saying what to fix (Node\'s recursive mkdir spun there at 100 % CPU, deaf to Ctrl-C)', { skip: !existsSync('/proc/self/status') && 'no procfs' }, () => {
  // The bound only ends a CLI that spins; a fixed one answers in seconds.
  const r = train(['--preset', 'cartpole', '--epochs', '1', '--runs-dir', '/proc/nope'], process.env, [], 120_000);
  assert.equal(r.code, 1, `exit code (null: still spinning when killed); stderr: ${r.stderr}`);
  assert.match(r.stderr, /^error: cannot create folder \/proc\/nope: \/proc does not accept a new folder there \(.*\); pass a folder you can write to$/m);
});

test('--seeds N trains N seeds into their own run directories and prints the agent beside its baselines with the spread across seeds', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  const r = train(['--preset', 'trading-6e', '--backend', 'cpu', '--epochs', '1', '--steps-per-epoch', '60', '--seed', '5', '--seeds', '2', '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = r.json as { seeds: number[]; runs: { seed: number; run_dir: string; return: number }[]; summary_file: string; eval: { agent: Record<string, { n: number; mean: number; std: number; iqm: number }>; baselines: Record<string, Record<string, number>>; baselines_identical: boolean } };
  assert.deepEqual(j.seeds, [5, 6]);
  assert.deepEqual(j.runs.map((x) => x.run_dir.replace(/^.*\d{8}-\d{6}-/, '')), ['trading-6e-seed5', 'trading-6e-seed6']);
  for (const x of j.runs) assert.equal(JSON.parse(readFileSync(join(x.run_dir, 'config.json'), 'utf8')).seed, x.seed);
  const returns = j.runs.map((x) => x.return);
  assert.notEqual(returns[0], returns[1], 'different seeds train different agents');
  const mean = (returns[0]! + returns[1]!) / 2;
  assert.ok(Math.abs(j.eval.agent.return!.mean - mean) < 1e-12);
  assert.ok(Math.abs(j.eval.agent.return!.std - Math.abs(returns[0]! - returns[1]!) / Math.SQRT2) < 1e-12);
  assert.equal(j.eval.agent.sharpe!.n, 2);
  assert.deepEqual(Object.keys(j.eval.baselines), ['flat', 'buy_and_hold', 'ma_crossover_20_60']);
  assert.equal(j.eval.baselines_identical, true);
  assert.deepEqual(JSON.parse(readFileSync(j.summary_file, 'utf8')), j, 'the summary file holds what was printed');
  assert.match(r.stderr, /buy&hold -?\d+\.\d\d%, Sharpe/);
  assert.deepEqual(r.stderr.trimEnd().split('\n').slice(-2), [`summary over 2 seeds: ${j.summary_file}`, `view: npm run serve -- --runs-dir ${runs}, then open the group ${basename(j.summary_file, '.json')} in the run history`]);
  const resumed = train(['--resume', j.runs[0]!.run_dir, '--seeds', '2']);
  assert.equal(resumed.code, 2);
  assert.match(resumed.stderr, /--seeds trains new runs: it cannot be combined with --resume/);
});

test('--help names the bundled presets, so a new user need not list resources/presets/, and says the exit codes', () => {
  const help = train(['--help']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout.replace(/\s+/g, ' '), /--preset <name> bundled preset: cartpole, cartpole-c51, cartpole-iqn, trading-6e, trading-6e-full, trading-spy /);
  assert.match(help.stdout, /\nExit codes:\n {2}0 {2}done \(finished, or stopped by Ctrl-C with a checkpoint kept\)\n {2}1 {2}failed while running[^]*\n {2}2 {2}usage error: [^]*\n {2}3 {2}a run halted/);
});

test('--help says what a new user must know: one of --preset, --config, --resume; the defaults; what auto picks; where runs go; examples; Ctrl-C and the CartPole target', () => {
  const help = train(['--help']).stdout;
  const flat = help.replace(/\s+/g, ' ');
  assert.match(help, /^Usage: npm run train -- \(--preset NAME \| --config FILE \| --resume RUN_DIR\) \[options\]\n/);
  assert.match(flat, /Give exactly one of --preset, --config or --resume\./);
  for (const flag of ['--backend <backend>', '--precision <p>', '--epochs <n>', '--steps-per-epoch <n>', '--seed <n>'])
    assert.match(flat, new RegExp(`${flag} [^-]*\\(default: the config's[ )]`), `${flag} says its default`);
  assert.match(flat, /auto: CUDA when the addon was built with CUDA, a GPU is usable and the GPU learner has the run's heads \(the plain Q head\), else the CPU, saying why/);
  assert.match(flat, /--seeds <n> .*; not with --walk-forward or --resume --walk-forward .*; not with --seeds or --resume/);
  assert.match(flat, /--runs-dir <dir> parent folder of run directories \(default: \$DQN_RUNS_DIR or <repo>\/runs\)/);
  assert.match(help, /\nExamples:\n {2}npm run train -- --preset cartpole --backend cpu +# [^\n]+\n {2}npm run train -- --config my-run\.json --seed 7 +# [^\n]+\n/);
  assert.match(flat, /Ctrl-C stops a run after its current step and keeps a checkpoint .* The CartPole presets stop once an evaluation reaches 475/);
  // What the help says is what the CLI does.
  const both = train(['--preset', 'cartpole', '--seeds', '2', '--walk-forward']);
  assert.deepEqual([both.code, both.stderr], [2, 'error: give --seeds or --walk-forward, not both\n']);
  assert.equal(train(['--help'], { ...process.env, DQN_RUNS_DIR: '/elsewhere' }).stdout, help, 'the help names $DQN_RUNS_DIR, not its value');
});
