// `npm run sweep`'s loop (issue 25 item 3): the planned trials one after another, each trained
// over the sweep's seeds as a seed group (main/cli/train-runs.ts: at once on the GPU when the
// backend is CUDA and they fit, one after another on the CPU), its validation figure the
// group's summary over seeds (seeds.ts, the Student-t interval of the mean), the trials ranked
// on it (a trial whose mean validation figures break the sweep file's constraints is listed with
// the reason and never ranked), and the top trial's final weights evaluated once on the test span
// (main/trainer/evaluate-checkpoint.ts); when no trial keeps the constraints, none is. The state is rewritten atomically after every change
// (main/trainer/sweep-dir.ts), so a sweep stopped by Ctrl-C or SIGTERM (or killed) resumes where
// it left off: finished trials are kept, a stopped seed run resumes from its checkpoint.
//
// Several trials at once (on several GPUs, or as one larger GPU seed group) would only change
// runTrials' loop: a trial's work is runTrial, and every state change goes through one save.
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RunConfig, RunConfigInput } from '../../common/config.ts';
import { seedStats, type SeedStats } from '../../common/seed-stats.ts';
import { paramsText, trialRunName, type PlannedTrial } from '../../common/sweep-plan.ts';
import { rankTrials, type FigureStats, type SweepTest, type SweepTrial, type SweepView } from '../../common/sweep-state.ts';
import { constraintBreaches, constraintText, TRADING_CONSTRAINT_FIGURES, type ConstraintFigure, type SweepConstraint, type SweepConstraints, type SweepFile, type SweepMetric } from '../../common/sweep.ts';
import { tradingEvalReport } from '../../common/trading-eval.ts';
import { runStamp } from '../trainer/run-dir.ts';
import { evaluateCheckpoint, type CheckpointEvaluation } from '../trainer/evaluate-checkpoint.ts';
import { makeFolder } from '../trainer/folders.ts';
import { acquireRunLock } from '../trainer/run-lock.ts';
import { hasTestSpan } from '../trainer/session.ts';
import { readSweepState, sweepDir, writeSweepFiles } from '../trainer/sweep-dir.ts';
import { groupMarker, seedList, seedRunName, summarizeSeeds, writeGroupSummary } from './seeds.ts';
import type { RunSummary } from './summary.ts';
import { trainSeeds, type SeedJob, type Stopper } from './train-runs.ts';

/** A trial as the state file keeps it: the view's fields, plus the summaries of its seeds that ended while it was unfinished (to resume it). */
type StateTrial = SweepTrial & { summaries?: RunSummary[] };

/** The state file's content: the view, and what a resume checks and needs. */
export type SweepState = Omit<SweepView, 'trials'> & {
  trials: StateTrial[];
  /** The sweep file as parsed, and the base config it named: a resume must find both unchanged. */
  spec: SweepFile;
  base: RunConfigInput;
  /** Names the trials' seed groups (`<stamp>-<sweep>-t<k>-seeds`), fixed when the sweep starts. */
  stamp: string;
};

/** What runSweep needs besides the plan. */
export interface SweepJob {
  file: SweepFile;
  /** The sweep file's path (the trials' runs name it as their config source). */
  filePath: string;
  base: RunConfigInput;
  /** The planned trials and their run configs (sweep-plan.ts trialConfigs), index k-1 for trial k. */
  trials: readonly PlannedTrial[];
  configs: readonly RunConfig[];
  runsDir: string;
  backend?: 'auto' | 'cpu' | 'cuda';
  stop: Stopper;
  /** Progress lines (stderr). */
  say: (line: string) => void;
}

/** A figure's SeedStats as the view keeps it (n, mean, std, interval). */
function figureStats(s: SeedStats): FigureStats {
  return { n: s.n, mean: s.mean, std: s.std, mean_ci95: s.mean_ci95 };
}

/** The validation figure `metric` of a trial's summary over seeds (summarizeSeeds), or undefined when that summary does not report it. */
export function validationFigure(summary: ReturnType<typeof summarizeSeeds>, metric: SweepMetric | ConstraintFigure): SeedStats | undefined {
  if (metric === 'eval_mean_return') return 'eval_mean_return' in summary ? summary.eval_mean_return : undefined;
  if (metric === 'eval_mean_reward_bps') return 'eval_mean_reward_bps' in summary ? summary.eval_mean_reward_bps : undefined;
  return 'eval' in summary && summary.eval ? summary.eval.agent[metric] : undefined;
}

/** The figure `metric` of one checkpoint evaluation (on the test span), as the validation figure of the same name is computed. */
function evaluationFigure(ev: CheckpointEvaluation, metric: SweepMetric | ConstraintFigure, config: RunConfig): number {
  if (metric === 'eval_mean_return') return ev.eval_mean_return;
  if (metric === 'eval_mean_reward_bps') return config.env.kind === 'trading' ? (ev.eval_mean_return / config.env.reward_scale) * 1e4 : Number.NaN;
  return tradingEvalReport(ev.metrics, ev.span)[metric];
}

/** Why `metric` cannot rank trials of `config`'s environment, or undefined when it can. */
export function metricProblem(metric: SweepMetric, config: RunConfig): string | undefined {
  if (config.env.kind === 'trading' ? metric === 'eval_mean_return' : metric !== 'eval_mean_return')
    return config.env.kind === 'trading'
      ? 'metric: a trading sweep ranks a validation walk figure (return, sharpe, max_drawdown, ...) or eval_mean_reward_bps, not eval_mean_return'
      : `metric: ${metric} is a trading figure; a ${config.env.kind} sweep ranks eval_mean_return`;
  return undefined;
}

/**
 * Why constraints on these figures cannot be checked on runs of `config`'s environment (one line
 * each, saying what the runs report instead); empty when every figure is one the runs report.
 */
export function constraintFigureProblems(constraints: SweepConstraints, config: RunConfig): string[] {
  const out: string[] = [];
  for (const figure of Object.keys(constraints) as ConstraintFigure[]) {
    if (config.env.kind === 'trading' && figure === 'eval_mean_return')
      out.push(`constraints.eval_mean_return: a trading run reports no eval_mean_return: bound one of its validation figures instead (${TRADING_CONSTRAINT_FIGURES.join(', ')})`);
    else if (config.env.kind !== 'trading' && figure !== 'eval_mean_return') out.push(`constraints.${figure}: ${figure} is a trading figure; a ${config.env.kind} run reports eval_mean_return only`);
  }
  return out;
}

/** The sweep's constraints in words (`turnover <= 50, return >= 0`), or '' without any. */
export function constraintsText(constraints: SweepConstraints | undefined): string {
  return Object.entries(constraints ?? {}).map(([f, c]) => constraintText(f, c as SweepConstraint)).join(', ');
}

/** Whether a run folder holds a checkpoint to resume from. */
function hasCheckpoint(runDir: string): boolean {
  try {
    return readdirSync(join(runDir, 'checkpoints')).some((n) => !n.startsWith('.'));
  } catch {
    return false;
  }
}

/** A new sweep's state: every trial pending. */
function freshState(job: SweepJob, now: Date): SweepState {
  const { file } = job;
  const stamp = runStamp(now);
  return {
    kind: 'sweep',
    version: 1,
    name: file.name,
    state: 'running',
    method: file.method,
    metric: file.metric,
    goal: file.goal,
    ...(file.constraints && Object.keys(file.constraints).length ? { constraints: file.constraints as SweepConstraints } : {}),
    seeds: seedList(file.first_seed ?? job.configs[0]!.seed, file.seeds),
    param_paths: Object.keys(file.params),
    trials: job.trials.map((t) => ({ index: t.index, params: t.params, status: 'pending', group: `${stamp}-${trialRunName(file.name, t.index)}-seeds`, runs: [] })),
    ranking: [],
    updated: now.toISOString(),
    spec: file,
    base: job.base,
    stamp,
  };
}

/**
 * The state a sweep resumes from, or a fresh one. A state file made from another sweep file or
 * base config is refused: the trials would not be the ones planned.
 * @throws Error saying what to change.
 */
function startingState(dir: string, job: SweepJob): SweepState {
  const found = readSweepState(dir);
  if (!found) return freshState(job, new Date());
  const state = found.json as unknown as SweepState;
  const differs = JSON.stringify(state.spec) !== JSON.stringify(job.file) ? 'sweep file' : JSON.stringify(state.base) !== JSON.stringify(job.base) ? 'base config' : undefined;
  if (differs) throw new Error(`${dir} holds the sweep '${job.file.name}' made from another ${differs}: to resume it, run it with the ${differs} it was made from; to start a new sweep, give it another name (or remove that folder)`);
  return { ...state, state: 'running' };
}

/**
 * Runs the sweep to its end, or until a Ctrl-C / SIGTERM (`job.stop`): trains every unfinished
 * trial, ranks, evaluates the top trial on the test span once, and keeps the state and table
 * in `<runsDir>/<name>-sweep/` up to date throughout.
 * @returns the final state (its `state` is finished or stopped).
 * @throws Error when the folder is locked by another live sweep process, holds another sweep, or cannot be written.
 */
export async function runSweep(job: SweepJob): Promise<SweepState> {
  const dir = sweepDir(job.runsDir, job.file.name);
  makeFolder(dir);
  const lock = acquireRunLock(dir);
  try {
    const state = startingState(dir, job);
    const save = () => {
      state.ranking = rankTrials(state.trials, state.goal);
      state.updated = new Date().toISOString();
      writeSweepFiles(dir, state);
    };
    save();
    const kept = constraintsText(state.constraints);
    job.say(`sweep ${state.name}: ${state.method} search, ${state.trials.length} trials x ${state.seeds.length} seeds, ranked by validation ${state.metric} (${state.goal})${kept ? ` among the trials whose validation means keep ${kept}` : ''}; folder ${dir}`);
    await runTrials(state, job, save);
    if (!job.stop.requested && state.trials.every((t) => t.status === 'finished' || t.status === 'failed')) {
      if (!state.test && state.ranking.length) {
        state.test = await testTopTrial(state, job);
        save();
      } else if (!state.test && state.trials.some((t) => t.ineligible)) {
        state.test = { skipped: noEligibleTrial(state) };
        job.say(state.test.skipped!);
        save();
      }
      state.state = 'finished';
    } else state.state = 'stopped';
    save();
    return state;
  } finally {
    lock.release();
  }
}

/** Every trial not done yet, one after another (see the file comment for running several at once). */
async function runTrials(state: SweepState, job: SweepJob, save: () => void): Promise<void> {
  for (const trial of state.trials) {
    if (job.stop.requested) return;
    const head = `trial ${trial.index} of ${state.trials.length}`;
    if (trial.status === 'finished' || trial.status === 'failed') {
      job.say(`${head}: ${trial.status} before, kept`);
      continue;
    }
    job.say(`${head}: ${paramsText(trial.params)}`);
    await runTrial(state, trial, job, save);
    if (trial.validation) {
      const v = trial.validation;
      const best = state.ranking.length ? `best so far: trial ${state.ranking[0]}` : `no trial keeps ${constraintsText(state.constraints)} yet`;
      const kept = state.constraints ? (trial.ineligible ? `; not eligible: ${trial.ineligible}` : `; keeps ${constraintsText(state.constraints)}`) : '';
      job.say(`${head}: validation ${state.metric} ${v.mean.toPrecision(4)} (95% CI ${v.mean_ci95[0].toPrecision(4)} to ${v.mean_ci95[1].toPrecision(4)}, n = ${v.n})${kept}; ${best}`);
    } else job.say(`${head}: ${trial.status}${trial.error ? ` (${trial.error})` : ''}`);
  }
}

/**
 * Trains one trial's seeds that have not ended: a seed whose run stopped (and kept a checkpoint)
 * resumes it, the others start new runs in the trial's seed group. Once every seed ended, the
 * group's summary is written and the trial gets its validation figure (or fails when no seed
 * finished an evaluation); after a stop it stays `stopped`.
 */
async function runTrial(state: SweepState, trial: StateTrial, job: SweepJob, save: () => void): Promise<void> {
  const config = job.configs[trial.index - 1]!;
  const summaryFile = join(job.runsDir, `${trial.group}.json`);
  const ended = new Map((trial.summaries ?? []).map((s) => [s.seed!, s]));
  const jobs: SeedJob[] = [];
  for (const seed of state.seeds) {
    if (ended.has(seed)) continue;
    const prev = trial.runs.find((r) => r.seed === seed);
    const prevDir = prev && join(job.runsDir, prev.run);
    if (prevDir && existsSync(prevDir) && hasCheckpoint(prevDir)) jobs.push({ seed, opts: { config, runsDir: job.runsDir, resume: prevDir, overrides: { backend: job.backend } } });
    else
      jobs.push({
        seed,
        opts: { config: { ...config, name: seedRunName(config.name, seed) }, runsDir: job.runsDir, overrides: { seed, backend: job.backend }, group: groupMarker(summaryFile, seed, state.seeds) },
      });
  }
  trial.status = 'running';
  save();
  const onRunDir = (seed: number, runDir: string) => {
    trial.runs = [...trial.runs.filter((r) => r.seed !== seed), { seed, run: basename(runDir), state: 'running' as const }].sort((a, b) => a.seed - b.seed);
    save();
  };
  const source = { preset: job.file.preset, config: job.filePath };
  const summaries = jobs.length ? await trainSeeds(config, jobs, source, job.stop, onRunDir) : [];
  for (const s of summaries) {
    const run = trial.runs.find((r) => r.run === basename(s.run_dir));
    if (run) run.state = s.state;
    if (s.state !== 'stopped') ended.set(s.seed!, s);
  }
  if (ended.size < state.seeds.length) {
    trial.status = 'stopped';
    trial.summaries = [...ended.values()];
    save();
    return;
  }
  const ordered = state.seeds.map((seed) => ended.get(seed)!);
  try {
    const summary = writeGroupSummary(summarizeSeeds({ preset: job.file.preset ?? null, config: job.filePath }, ordered, summaryFile));
    const figure = validationFigure(summary, state.metric);
    if (!figure) throw new RangeError(`the runs report no validation ${state.metric}`);
    trial.validation = figureStats(figure);
    if (state.constraints) {
      const constrained: Partial<Record<ConstraintFigure, FigureStats>> = {};
      for (const f of Object.keys(state.constraints) as ConstraintFigure[]) {
        const s = validationFigure(summary, f);
        if (s && Number.isFinite(s.mean)) constrained[f] = figureStats(s);
      }
      trial.constrained = constrained;
      const breaches = constraintBreaches(state.constraints, Object.fromEntries(Object.entries(constrained).map(([f, s]) => [f, s.mean])));
      if (breaches.length) trial.ineligible = breaches.join('; ');
      else delete trial.ineligible;
    }
    trial.status = 'finished';
  } catch (e) {
    trial.status = 'failed';
    trial.error = (e as Error).message;
  }
  delete trial.summaries;
  save();
}

/**
 * Why nothing is evaluated on the test span when every finished trial breaks a constraint: no
 * trial is a config the constraints allow, and the held-out span is not spent on one they refuse.
 * Names the trial that came closest (the smallest largest breach, relative to its bound).
 */
function noEligibleTrial(state: SweepState): string {
  const constraints = state.constraints ?? {};
  const worst = (t: StateTrial): number =>
    Math.max(
      0,
      ...(Object.entries(constraints) as [ConstraintFigure, SweepConstraint][]).map(([f, c]) => {
        const v = t.constrained?.[f]?.mean;
        if (v === undefined) return Infinity;
        const over = c.max !== undefined && v > c.max ? (v - c.max) / Math.max(Math.abs(c.max), 1e-12) : 0;
        const under = c.min !== undefined && v < c.min ? (c.min - v) / Math.max(Math.abs(c.min), 1e-12) : 0;
        return Math.max(over, under);
      }),
    );
  const closest = state.trials.filter((t) => t.ineligible).sort((a, b) => worst(a) - worst(b) || a.index - b.index)[0];
  const near = closest ? `; the closest was trial ${closest.index} (${closest.ineligible})` : '';
  return `no trial kept the constraints (${constraintsText(state.constraints)}, on the mean validation figures over seeds): no config is chosen and nothing is evaluated on the test span${near}. Loosen a constraint or search other values`;
}

/**
 * The top trial's final weights (each seed's latest checkpoint: the weights whose validation
 * figures were ranked) evaluated once on the test span, as the metric and the constrained
 * figures; or why not (no test span).
 */
async function testTopTrial(state: SweepState, job: SweepJob): Promise<SweepTest> {
  const trial = state.trials.find((t) => t.index === state.ranking[0])!;
  const config = job.configs[trial.index - 1]!;
  if (!hasTestSpan(config)) return { trial: trial.index, skipped: 'the trials hold out no test span (env.test_fraction is 0): set env.test_fraction > 0 in the base config or fixed to report one' };
  job.say(`trial ${trial.index} (the best on validation): evaluating its final weights once on the test span`);
  const per_seed = [];
  const figures = Object.keys(state.constraints ?? {}) as ConstraintFigure[];
  const values = new Map<ConstraintFigure, number[]>(figures.map((f) => [f, []]));
  for (const run of trial.runs.filter((r) => r.state === 'finished')) {
    const ev = await evaluateCheckpoint(join(job.runsDir, run.run), 'latest', 'test');
    per_seed.push({ seed: run.seed, run: run.run, value: evaluationFigure(ev, state.metric, config) });
    for (const f of figures) values.get(f)!.push(evaluationFigure(ev, f, config));
  }
  if (per_seed.length === 0) return { trial: trial.index, skipped: 'no seed of the top trial finished' };
  const stats = figureStats(seedStats(per_seed.map((p) => p.value)));
  const constrained = Object.fromEntries([...values].map(([f, v]) => [f, figureStats(seedStats(v))]).filter(([, s]) => Number.isFinite((s as FigureStats).mean))) as Partial<Record<ConstraintFigure, FigureStats>>;
  const also = Object.entries(constrained).map(([f, s]) => `, ${f} ${s.mean.toPrecision(4)}`).join('');
  job.say(`trial ${trial.index} on the test span: ${state.metric} ${stats.mean.toPrecision(4)} (95% CI ${stats.mean_ci95[0].toPrecision(4)} to ${stats.mean_ci95[1].toPrecision(4)}, n = ${stats.n})${also}`);
  return { trial: trial.index, checkpoint: 'latest', stats, per_seed, ...(figures.length ? { constrained } : {}) };
}
