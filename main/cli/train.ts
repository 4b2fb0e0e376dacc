// `npm run train -- (--preset NAME | --config FILE | --resume RUN_DIR) [--backend auto|cpu|cuda]
//   [--precision P] [--epochs N] [--steps-per-epoch N] [--seed N] [--seeds N | --walk-forward] [--runs-dir DIR] [--json]`
// Headless training with a terminal progress display (stderr), ending with where the run went and
// what to type next (next-steps.ts: the run folder, resume for a stopped run, how to view it). With --json the last line on
// stdout is one JSON object summarising the run, with --seeds N the N runs (seeds.ts), with
// --walk-forward every fold of env.folds, per fold and pooled (folds.ts).
import { Command, InvalidArgumentError } from 'commander';
import { basename, resolve } from 'node:path';
import { oneOf, parseArgv } from './cli-args.ts';
import type { RunConfigInput } from '../../common/config.ts';
import { exitCodeFor, exitCodesHelp } from './exit-codes.ts';
import { listPresets, loadPreset, readJsonFile } from '../trainer/presets.ts';
import { defaultRunsDir } from '../trainer/paths.ts';
import { resolveConfig } from '../trainer/session.ts';
import type { StartOptions } from '../trainer/session-api.ts';
import type { RunSummary, RunSource } from './summary.ts';
import { stopOnSignals, trainOne, trainSeeds } from './train-runs.ts';
import { foldList, foldRunName, summarizeFolds } from './folds.ts';
import { groupMarker, groupSummaryPath, MAX_SEEDS, seedList, seedRunName, seedSummaryLines, summarizeSeeds, unsummarizedSeeds, writeGroupSummary } from './seeds.ts';
import { commandPath, foldsNextLines, runNextLines, seedGroupNextLines, type NextContext } from './next-steps.ts';

const positiveInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${what} must be a positive integer, got '${v}'`);
  return n;
};
const nonNegativeInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${what} must be a non-negative integer, got '${v}'`);
  return n;
};

interface CliOptions {
  preset?: string;
  config?: string;
  backend?: 'auto' | 'cpu' | 'cuda';
  precision?: 'tf32' | 'bf16' | 'fp32';
  epochs?: number;
  stepsPerEpoch?: number;
  seed?: number;
  seeds?: number;
  walkForward?: boolean;
  resume?: string;
  runsDir?: string;
  json?: boolean;
}

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('npm run train --')
    .usage('(--preset NAME | --config FILE | --resume RUN_DIR) [options]')
    .description('Train a DQN agent headless (CPU or CUDA backend). Give exactly one of --preset, --config or --resume.')
    .option('--preset <name>', `bundled preset: ${listPresets().join(', ')} (resources/presets/<name>.json)`)
    .option('--config <file>', 'run config JSON file (the shape of a preset; every field has a default)')
    .option('--resume <run_dir>', 'continue a stopped run (or a finished one, with a larger --epochs) from its latest checkpoint')
    .option('--backend <backend>', "auto | cpu | cuda (default: the config's). auto: CUDA when the addon was built with CUDA, a GPU is usable and the GPU learner has the run's heads (the plain Q head), else the CPU, saying why; cuda without them exits 1", oneOf('--backend', ['auto', 'cpu', 'cuda']))
    .option('--precision <p>', "CUDA matrix products: tf32 | bf16 | fp32 (default: the config's network.precision)", oneOf('--precision', ['tf32', 'bf16', 'fp32']))
    .option('--epochs <n>', "epochs to run, in all, resumed ones included (default: the config's)", positiveInt('--epochs'))
    .option('--steps-per-epoch <n>', "gradient steps per epoch (default: the config's)", positiveInt('--steps-per-epoch'))
    .option('--seed <n>', "seed of every random stream (default: the config's)", nonNegativeInt('--seed'))
    .option('--seeds <n>', `train and evaluate N seeds (--seed, or the config's, then +1, ...; at most ${MAX_SEEDS}), one run directory each, and report mean, std, IQM and the 95% t-interval of the mean over them; not with --walk-forward or --resume`, positiveInt('--seeds'))
    .option('--walk-forward', 'train every fold of env.folds (one run directory each) and report them per fold and pooled over their test spans; not with --seeds or --resume')
    .option('--runs-dir <dir>', 'parent folder of run directories (default: $DQN_RUNS_DIR or <repo>/runs)')
    .option('--json', 'print a JSON summary as the last line on stdout')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  npm run train -- --preset cartpole --backend cpu     # solve CartPole on the CPU',
        '  npm run train -- --config my-run.json --seed 7       # a config file, another seed',
        '',
        'Ctrl-C stops a run after its current step and keeps a checkpoint (the last lines say how to',
        'resume it). The CartPole presets stop once an evaluation reaches 475 (schedule.target_return).',
        '',
        exitCodesHelp(true),
      ].join('\n'),
    );
  const refused = parseArgv(program, argv);
  if (refused !== undefined) return refused;
  const o = program.opts<CliOptions>();
  const sources = [o.preset, o.config, o.resume].filter(Boolean).length;
  if (sources !== 1) {
    process.stderr.write('error: give exactly one of --preset NAME, --config FILE or --resume RUN_DIR\n');
    return 2;
  }

  if ((o.seeds !== undefined || o.walkForward) && o.resume) {
    process.stderr.write(`error: ${o.seeds !== undefined ? '--seeds' : '--walk-forward'} trains new runs: it cannot be combined with --resume\n`);
    return 2;
  }
  if (o.seeds !== undefined && o.walkForward) {
    process.stderr.write('error: give --seeds or --walk-forward, not both\n');
    return 2;
  }

  let config: RunConfigInput = { env: { kind: 'cartpole' } };
  if (o.preset) config = loadPreset(o.preset);
  if (o.config) config = readJsonFile(resolve(o.config), 'config file') as RunConfigInput;
  const runsDir = resolve(o.runsDir ?? defaultRunsDir());
  const opts: StartOptions = {
    config,
    runsDir,
    resume: o.resume ? resolve(o.resume) : undefined,
    overrides: { epochs: o.epochs, steps_per_epoch: o.stepsPerEpoch, seed: o.seed, backend: o.backend, precision: o.precision },
  };
  const source: RunSource = { preset: o.preset, config: o.config ? resolve(o.config) : undefined, resumedFrom: opts.resume };
  const stop = stopOnSignals();
  const next: NextContext = { runsDir, serveRunsDir: resolve(defaultRunsDir()), cwd: process.cwd() };
  const say = (lines: string[]) => lines.forEach((l) => process.stderr.write(`${l}\n`));

  if (o.walkForward) {
    const base = resolveConfig(opts);
    const runs: RunSummary[] = [];
    for (const fold of foldList(base)) {
      if (stop.requested) break;
      process.stderr.write(`fold ${fold} (${fold + 1} of ${base.env.kind === 'trading' ? base.env.folds : 1})\n`);
      const foldConfig = { ...base, name: foldRunName(base.name, fold), env: { ...base.env, fold } };
      runs.push((await trainOne({ ...opts, config: foldConfig }, source, stop)).summary);
    }
    const summary = writeGroupSummary(summarizeFolds({ preset: o.preset ?? null, config: source.config ?? null }, runs, groupSummaryPath(runsDir, base.name, 'folds')));
    process.stderr.write(`walk-forward summary over ${runs.length} folds: ${commandPath(summary.summary_file, next.cwd)}\n`);
    say(foldsNextLines(runs.map((r, k) => ({ label: `fold ${k}`, state: r.state, run_dir: r.run_dir })), next));
    if (o.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    return runs.some((r) => r.state === 'halted') ? 3 : 0;
  }

  if (o.seeds === undefined) {
    const { summary } = await trainOne(opts, source, stop);
    say(runNextLines(summary, next));
    if (o.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    return summary.state === 'halted' ? 3 : 0;
  }

  const base = resolveConfig(opts);
  const seeds = seedList(o.seed ?? base.seed, o.seeds);
  const summaryFile = groupSummaryPath(runsDir, base.name, 'seeds'); // names the group from its start (every member's group.json)
  const seedOpts = (seed: number): StartOptions => ({
    ...opts,
    config: { ...base, name: seedRunName(base.name, seed) },
    overrides: { ...opts.overrides, seed },
    group: groupMarker(summaryFile, seed, seeds),
  });
  const summaries = await trainSeeds(base, seeds.map((seed) => ({ seed, opts: seedOpts(seed) })), source, stop);
  const groupSource = { preset: o.preset ?? null, config: source.config ?? null };
  const members = summaries.map((r) => ({ label: `seed ${r.seed}`, state: r.state, run_dir: r.run_dir }));
  const nextLines = seedGroupNextLines(basename(summaryFile, '.json'), members, next);
  if (stop.requested && !summaries.some((r) => r.state !== 'halted' && r.eval_episodes > 0)) {
    // A Ctrl-C before any seed finished an evaluation: nothing to summarise, the stopped seeds resume.
    say([`no summary over seeds: stopped before any seed finished an evaluation`, ...nextLines]);
    if (o.json) process.stdout.write(`${JSON.stringify(unsummarizedSeeds(groupSource, seeds, summaries))}\n`);
    return 0;
  }
  const summary = writeGroupSummary(summarizeSeeds(groupSource, summaries, summaryFile));
  say(seedSummaryLines(summary));
  say([`summary over ${summary.seeds_in_statistics.length} seeds: ${commandPath(summary.summary_file, next.cwd)}`, ...nextLines]);
  if (o.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  return summaries.some((r) => r.state === 'halted') ? 3 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(exitCodeFor(e));
  },
);
