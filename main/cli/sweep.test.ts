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
import { SweepViewSchema, type SweepView } from '../../common/sweep-state.ts';
import { tradingEvalReport } from '../../common/trading-eval.ts';
import { REPO_ROOT } from '../trainer/paths.ts';
import { loadPreset } from '../trainer/presets.ts';
import { readRunMetrics } from '../trainer/run-dir.ts';
import { TINY_SWEEP, writeTinySweep } from '../testing/tiny-sweep.ts';
import { sweep } from './run-cli.ts';
import { metricProblem } from './sweep-run.ts';

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
  assert.match(readFileSync(join(runs, interrupted.run, 'events.log'), 'utf8'), /resumed from .*stop-step-/);
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
  assert.match(r.stderr, /params\.env\.decision_intervall: unknown config field \(misspelled\?\): env has kind, /);
  assert.equal(existsSync(join(dir, 'runs')), false, 'nothing written');
  const cartpole = writeTinySweep(dir, { ...TINY_SWEEP, metric: 'eval_mean_return' });
  assert.match(sweep(['--config', cartpole, '--runs-dir', join(dir, 'runs')]).stderr, /metric: a trading sweep ranks a validation walk figure/);
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
  }
});
