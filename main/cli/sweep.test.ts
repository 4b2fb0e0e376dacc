// `npm run sweep` end to end on the real native trainer: a tiny grid of 4 trials x 2 seeds is
// stopped by SIGINT (what Ctrl-C sends) once its third trial's first run has started, resumes
// from where it stopped when the same command runs again (finished trials kept, the stopped run
// resumed from its checkpoint), ranks the trials as their own run folders' validation figures
// say, evaluates the top trial once on the test span and writes its table as JSON and CSV.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunConfigInput } from '../../common/config.ts';
import type { EpochSummary } from '../../common/run.ts';
import { planTrials, trialConfigs } from '../../common/sweep-plan.ts';
import { parseSweepFile } from '../../common/sweep.ts';
import { rankTrials, SweepViewSchema, type SweepView } from '../../common/sweep-state.ts';
import { tradingEvalReport } from '../../common/trading-eval.ts';
import { REPO_ROOT } from '../trainer/paths.ts';
import { loadPreset } from '../trainer/presets.ts';
import { readRunMetrics } from '../trainer/run-dir.ts';
import { TINY_SWEEP, writeTinySweep } from '../testing/tiny-sweep.ts';
import { sweep } from './run-cli.ts';
import { constraintFigureProblems, metricProblem } from './sweep-run.ts';

const readState = (runs: string): SweepView => SweepViewSchema.parse(JSON.parse(readFileSync(join(runs, 'tiny-sweep', 'sweep.json'), 'utf8')));

/** The last epoch record of a run folder. */
async function lastEpoch(runDir: string): Promise<EpochSummary> {
  const epochs = (await readRunMetrics(runDir)).filter((r) => r.type === 'epoch');
  return epochs.at(-1) as EpochSummary;
}

/** Runs the sweep CLI and sends it SIGINT once `stopAt` (a stderr line test) has matched; resolves with its exit code and stderr. */
function sweepStoppedAt(args: string[], stopAt: (line: string, seen: string[]) => boolean): Promise<{ code: number | null; stderr: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(REPO_ROOT, 'main', 'cli', 'sweep.ts'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const seen: string[] = [];
  let sent = false;
  createInterface({ input: child.stderr! }).on('line', (line) => {
    seen.push(line);
    if (!sent && stopAt(line, seen)) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  return new Promise((r) => child.once('close', (code) => r({ code, stderr: seen })));
}

test('a sweep of 4 tiny trials x 2 seeds stopped by Ctrl-C resumes without retraining finished trials, ranks on validation and writes its table', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-sweep-'));
  const runs = join(dir, 'runs');
  const file = writeTinySweep(dir);
  const args = ['--config', file, '--runs-dir', runs, '--json'];

  // Stopped once trial 3's first run exists: its run directory line comes after the trial's header.
  const first = await sweepStoppedAt(args, (line, seen) => line.includes('run directory:') && seen.some((l) => l.startsWith('trial 3 of 4:')));
  assert.equal(first.code, 0, first.stderr.join('\n'));
  assert.ok(first.stderr.includes('sweep stopped: run the same command again to resume it'));
  const stopped = readState(runs);
  assert.equal(stopped.state, 'stopped');
  assert.deepEqual(stopped.trials.map((t) => t.status), ['finished', 'finished', 'stopped', 'pending']);
  const interrupted = stopped.trials[2]!.runs.find((r) => r.state === 'stopped');
  assert.ok(interrupted, 'the run that trained when the signal came stopped (with its checkpoint)');
  const kept = stopped.trials.slice(0, 2).flatMap((t) => t.runs.map((r) => r.run));
  assert.equal(kept.length, 4);
  const stamp = (run: string) => {
    const st = statSync(join(runs, run, 'metrics.jsonl'));
    return `${st.size}:${st.mtimeMs}`;
  };
  const before = kept.map(stamp);

  // The same command again: trials 1 and 2 are kept as they were, the stopped run resumes, the rest train.
  const second = sweep(args);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stderr, /trial 1 of 4: finished before, kept\ntrial 2 of 4: finished before, kept\ntrial 3 of 4: /);
  assert.deepEqual(kept.map(stamp), before, 'no finished trial was trained again');
  const view = SweepViewSchema.parse(second.json);
  assert.deepEqual(view, readState(runs));
  assert.equal(view.state, 'finished');
  assert.deepEqual(view.trials.map((t) => t.status), ['finished', 'finished', 'finished', 'finished']);
  assert.ok(view.trials[2]!.runs.some((r) => r.run === interrupted.run), 'the stopped run was resumed, not replaced');
  // It resumed where it stopped: from its stop checkpoint, or from the epoch's when the signal
  // came at an epoch's last step (both then hold that step's state; ties go to the epoch's).
  const events = readFileSync(join(runs, interrupted.run, 'events.log'), 'utf8');
  const stoppedAt = /"stopped at step (\d+)"/.exec(events)?.[1];
  assert.ok(stoppedAt, events);
  assert.match(events, new RegExp(`resumed from \\S*checkpoints/(stop-step-${stoppedAt}|epoch-\\d+) at step ${stoppedAt}\\b`));
  const seedRuns = readdirSync(runs).filter((n) => /-seed\d+$/.test(n));
  assert.equal(seedRuns.length, 8, `one run folder per trial and seed: ${seedRuns.join(', ')}`);

  // The ranking, against the trials' own validation figures read back from their run folders.
  const means = new Map<number, number>();
  for (const t of view.trials) {
    const returns = await Promise.all(t.runs.map(async (r) => tradingEvalReport((await lastEpoch(join(runs, r.run))).eval_metrics, 'validation').return));
    assert.equal(returns.length, 2);
    const mean = (returns[0]! + returns[1]!) / 2;
    assert.ok(Math.abs(t.validation!.mean - mean) < 1e-12, `trial ${t.index}: ${t.validation!.mean} against ${mean} from its runs`);
    assert.ok(t.validation!.mean_ci95[0] < mean && mean < t.validation!.mean_ci95[1]);
    means.set(t.index, mean);
    assert.ok(existsSync(join(runs, `${t.group}.json`)), "the trial's seed group summary");
  }
  assert.deepEqual(view.ranking, [...means.keys()].sort((a, b) => means.get(b)! - means.get(a)! || a - b));

  // The top trial, once, on the test span: its final weights give what each run reported at its end.
  const top = view.trials.find((t) => t.index === view.ranking[0])!;
  assert.equal(view.test?.trial, top.index);
  assert.equal(view.test?.per_seed?.length, 2);
  for (const p of view.test!.per_seed!) assert.equal(p.value, tradingEvalReport((await lastEpoch(join(runs, p.run))).test_metrics!, 'test').return);

  // The table, as JSON and CSV, best first.
  const table = JSON.parse(readFileSync(join(runs, 'tiny-sweep', 'table.json'), 'utf8')) as { rows: Record<string, unknown>[] };
  assert.deepEqual(table.rows.map((r) => r.trial), view.ranking);
  assert.deepEqual(table.rows.map((r) => r.best), [true, false, false, false]);
  const csv = readFileSync(join(runs, 'tiny-sweep', 'table.csv'), 'utf8').trim().split('\n');
  assert.equal(csv.length, 5);
  assert.match(csv[0]!, /^rank,trial,status,best,optim\.lr,env\.decision_interval,metric,n,mean,std,ci95_lo,ci95_hi,test_n,test_mean,test_ci95_lo,test_ci95_hi,group,runs$/);
  const cells = csv[1]!.split(',');
  assert.deepEqual(cells.slice(0, 4), ['1', String(top.index), 'finished', 'true']);
  assert.equal(Number(cells[8]), top.validation!.mean);
  assert.equal(Number(cells[13]), view.test!.stats!.mean);

  // Once finished, the command changes nothing; a changed sweep file is refused, not mixed in.
  const again = sweep(args);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual({ ...SweepViewSchema.parse(again.json), updated: '' }, { ...view, updated: '' });
  writeFileSync(file, JSON.stringify({ ...TINY_SWEEP, seeds: 3 }));
  const changed = sweep(args);
  assert.equal(changed.code, 1);
  assert.match(changed.stderr, /holds the sweep 'tiny' made from another sweep file: to resume it, run it with the sweep file it was made from; to start a new sweep, give it another name/);
});

test('an invalid sweep file is refused before anything trains, one line per problem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-sweep-'));
  const file = writeTinySweep(dir, { ...TINY_SWEEP, params: { 'optim.lr': { min: 0, max: 0.01, log: true }, 'env.decision_intervall': { values: [1] } } });
  const r = sweep(['--config', file, '--runs-dir', join(dir, 'runs')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /error: invalid sweep file:\n {2}params\.optim\.lr: log scale needs a positive range: min is 0; give min > 0 \(e\.g\. 0\.0001\) or drop log\n/);
  assert.match(r.stderr, /params\.env\.decision_intervall: unknown field \(misspelled\?\); did you mean env\.decision_interval\?\n/);
  assert.equal(existsSync(join(dir, 'runs')), false, 'nothing written');
  const cartpole = writeTinySweep(dir, { ...TINY_SWEEP, metric: 'eval_mean_return' });
  assert.match(sweep(['--config', cartpole, '--runs-dir', join(dir, 'runs')]).stderr, /metric: a trading sweep ranks a validation walk figure/);
  // A constraint on a figure the runs do not report: its name misspelled, or a CartPole figure on a trading sweep.
  const typo = sweep(['--config', writeTinySweep(dir, { ...TINY_SWEEP, constraints: { turnovr: { max: 50 }, turnover: {} } }), '--runs-dir', join(dir, 'runs')]);
  assert.equal(typo.code, 2);
  assert.match(
    typo.stderr,
    /error: invalid sweep file:\n {2}constraints\.turnovr: unknown validation figure \(misspelled\?\): a trading run reports return, return_simple, sharpe, sharpe_se, max_drawdown, ruined, turnover, costs, financing, trade_fraction, eval_mean_reward_bps; a CartPole run eval_mean_return\n {2}constraints\.turnover: give max \(the trial's mean over seeds may not exceed it\), min \(nor fall below it\), or both, e\.g\. \{ "max": 50 \}\n/,
  );
  const kind = sweep(['--config', writeTinySweep(dir, { ...TINY_SWEEP, constraints: { eval_mean_return: { min: 0 } } }), '--runs-dir', join(dir, 'runs')]);
  assert.equal(kind.code, 2);
  assert.match(kind.stderr, /constraints\.eval_mean_return: a trading run reports no eval_mean_return: bound one of its validation figures instead \(return, return_simple, /);
  assert.equal(existsSync(join(dir, 'runs')), false, 'nothing written');
});

test('a constraint on the validation turnover excludes the best trial by return and the next eligible one is chosen; when no trial keeps the constraints none is evaluated on the test span', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-sweep-'));
  const runs = join(dir, 'runs');
  const groupTurnover = (t: SweepView['trials'][number]) => (JSON.parse(readFileSync(join(runs, `${t.group}.json`), 'utf8')) as { eval: { agent: { turnover: { mean: number } } } }).eval.agent.turnover.mean;

  // No trial reaches an annualized validation Sharpe of 100: none is eligible, none is ranked, none is shown on the test span.
  const none = sweep(['--config', writeTinySweep(dir, { ...TINY_SWEEP, constraints: { sharpe: { min: 100 } } }), '--runs-dir', runs, '--json']);
  assert.equal(none.code, 0, none.stderr);
  const a = SweepViewSchema.parse(none.json);
  assert.deepEqual(a.ranking, []);
  assert.ok(a.trials.every((t) => t.status === 'finished' && /^validation sharpe -?\d.* is below its min 100$/.test(t.ineligible ?? '')), JSON.stringify(a.trials.map((t) => t.ineligible)));
  assert.equal(a.test?.trial, undefined);
  assert.equal(a.test?.stats, undefined);
  assert.match(a.test!.skipped!, /^no trial kept the constraints \(sharpe >= 100, on the mean validation figures over seeds\): no config is chosen and nothing is evaluated on the test span; the closest was trial \d/);
  assert.match(none.stderr, /sweep finished: no trial kept the constraints .* Loosen a constraint or search other values\. table in /);
  const noneTable = JSON.parse(readFileSync(join(runs, 'tiny-sweep', 'table.json'), 'utf8')) as { rows: Record<string, unknown>[] };
  assert.ok(noneTable.rows.every((r) => r.rank === null && r.best === false && r.eligible === false && r.test_mean === null));
  assert.deepEqual(
    noneTable.rows.map((r) => r.trial),
    rankTrials(a.trials.map((t) => ({ index: t.index, validation: t.validation })), 'max'),
    'listed as they would rank without the constraint',
  );

  // The best trial by validation return, unconstrained, and a turnover bound between its mean
  // turnover and its nearest neighbour's that leaves that neighbour eligible: a max just below it
  // when another trial trades less (the bar's use), else a min just above it (which side depends
  // on the training start bars, not on the code under test).
  const top = a.trials.find((t) => t.index === noneTable.rows[0]!.trial)!;
  const turnover = new Map(a.trials.map((t) => [t.index, groupTurnover(t)]));
  const own = turnover.get(top.index)!;
  const others = [...turnover].filter(([i]) => i !== top.index).map(([, v]) => v);
  const lower = others.filter((v) => v < own), higher = others.filter((v) => v > own);
  assert.ok(lower.length + higher.length > 0, `another trial trades otherwise than trial ${top.index}: ${JSON.stringify([...turnover])}`);
  const side = lower.length > 0 ? 'max' : 'min';
  const bound = Number(((own + (side === 'max' ? Math.max(...lower) : Math.min(...higher))) / 2).toPrecision(6));
  const breaks = (v: number) => (side === 'max' ? v > bound : v < bound);
  const beyond = side === 'max' ? 'above its max' : 'below its min';

  const file = writeTinySweep(dir, { ...TINY_SWEEP, name: 'tiny-turnover', constraints: { turnover: { [side]: bound } } });
  const r = sweep(['--config', file, '--runs-dir', runs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const b = SweepViewSchema.parse(r.json);
  assert.deepEqual(b.constraints, { turnover: { [side]: bound } });
  for (const t of b.trials) {
    const v = groupTurnover(t);
    assert.equal(t.constrained?.turnover?.mean, v, `trial ${t.index}: the turnover of its seed group summary`);
    assert.equal(t.ineligible, breaks(v) ? `validation turnover ${Number(v.toPrecision(4))} is ${beyond} ${bound}` : undefined);
  }
  const bTop = b.trials.find((t) => t.index === top.index)!;
  assert.ok(bTop.ineligible, `trial ${top.index}, the best by return, trades ${own}x, ${beyond} ${bound}x`);
  assert.ok(Math.abs(bTop.validation!.mean - top.validation!.mean) < 1e-12, 'the CPU backend trains the same trial the same way in both sweeps');
  const eligible = b.trials.filter((t) => !t.ineligible);
  assert.deepEqual(b.ranking, [...eligible].sort((x, y) => y.validation!.mean - x.validation!.mean || x.index - y.index).map((t) => t.index));
  assert.notEqual(b.ranking[0], top.index, 'the ranking changed: another trial is chosen');
  assert.equal(b.test?.trial, b.ranking[0]);
  assert.equal(b.test?.per_seed?.length, 2);
  const chosen = b.trials.find((t) => t.index === b.ranking[0])!;
  const testTurnovers = await Promise.all(chosen.runs.map(async (run) => tradingEvalReport((await lastEpoch(join(runs, run.run))).test_metrics!, 'test').turnover));
  assert.ok(Math.abs(b.test!.constrained!.turnover!.mean - (testTurnovers[0]! + testTurnovers[1]!) / 2) < 1e-9, "the chosen trial's test turnover, as its runs reported it");
  assert.match(r.stderr, new RegExp(`trial ${top.index} of 4: validation return .*; not eligible: validation turnover .* is ${beyond} ${bound}; `));

  // The table (JSON and CSV): eligible trials ranked first, the excluded ones after with the reason, never best.
  const table = JSON.parse(readFileSync(join(runs, 'tiny-turnover-sweep', 'table.json'), 'utf8')) as { rows: Record<string, unknown>[] };
  assert.deepEqual(table.rows.slice(0, b.ranking.length).map((r) => [r.trial, r.eligible]), b.ranking.map((i) => [i, true]));
  const excludedRow = table.rows.find((r) => r.trial === top.index)!;
  assert.deepEqual([excludedRow.rank, excludedRow.best, excludedRow.eligible, excludedRow.validation_turnover], [null, false, false, turnover.get(top.index)]);
  assert.match(String(excludedRow.not_eligible_because), new RegExp(`^validation turnover .* is ${beyond} `));
  const csv = readFileSync(join(runs, 'tiny-turnover-sweep', 'table.csv'), 'utf8').trim().split('\n');
  assert.match(csv[0]!, /^rank,trial,status,best,optim\.lr,env\.decision_interval,metric,n,mean,std,ci95_lo,ci95_hi,validation_turnover,eligible,not_eligible_because,test_n,test_mean,test_ci95_lo,test_ci95_hi,test_turnover,group,runs$/);
  assert.match(csv.find((l) => l.startsWith(`,${top.index},`))!, new RegExp(`,false,validation turnover [\\d.]+ is ${beyond} [\\d.]+,`));
});

test('every bundled sweep file (resources/sweeps) parses, and each of its trials is a valid config of its base', () => {
  const dir = join(REPO_ROOT, 'resources', 'sweeps');
  const files = readdirSync(dir).filter((n) => n.endsWith('.json'));
  assert.ok(files.length >= 1);
  for (const name of files) {
    const file = parseSweepFile(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    const base = file.preset ? loadPreset(file.preset) : (JSON.parse(readFileSync(join(dir, file.config!), 'utf8')) as RunConfigInput);
    const configs = trialConfigs(base, file, planTrials(file));
    assert.ok(configs.length >= 2, name);
    assert.equal(metricProblem(file.metric, configs[0]!), undefined, name);
    assert.deepEqual(constraintFigureProblems(file.constraints ?? {}, configs[0]!), [], name);
  }
});
