// `npm run sweep -- --config SWEEP_FILE [--runs-dir DIR] [--backend auto|cpu|cuda] [--json]`
// A grid or seeded random search over run config fields (common/sweep.ts: the file format),
// each trial trained over N seeds, ranked on a validation figure with its 95% interval, the top
// trial evaluated once on the test span (sweep-run.ts). Running the same command again after a
// Ctrl-C resumes the sweep. With --json the last stdout line is the sweep's state (the view).
import { Command } from 'commander';
import { dirname, resolve } from 'node:path';
import { oneOf, parseArgv } from './cli-args.ts';
import { exitCodeFor, exitCodesHelp } from './exit-codes.ts';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { SweepViewSchema } from '../../common/sweep-state.ts';
import { parseSweepFile, SweepFileError } from '../../common/sweep.ts';
import { planTrials, trialConfigs } from '../../common/sweep-plan.ts';
import { defaultRunsDir } from '../trainer/paths.ts';
import { loadPreset, readJsonFile } from '../trainer/presets.ts';
import { constraintFigureProblems, metricProblem, runSweep } from './sweep-run.ts';
import { stopOnSignals } from './train-runs.ts';

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('npm run sweep --')
    .description('Search run configs: every trial trained over several seeds, ranked on validation, the best evaluated once on the test span.')
    .requiredOption('--config <file>', 'sweep file (JSON; see the README, "Sweeps")')
    .option('--runs-dir <dir>', 'parent folder of run directories and of the sweep folder', defaultRunsDir())
    .option('--backend <backend>', 'auto | cpu | cuda, for every trial', oneOf('--backend', ['auto', 'cpu', 'cuda']))
    .option('--json', "print the sweep's state as JSON on the last stdout line")
    .addHelpText('after', `\n${exitCodesHelp(false)}`);
  const refused = parseArgv(program, argv);
  if (refused !== undefined) return refused;
  const o = program.opts<{ config: string; runsDir: string; backend?: 'auto' | 'cpu' | 'cuda'; json?: boolean }>();
  const filePath = resolve(o.config);
  const file = parseSweepFile(readJsonFile(filePath, 'sweep file'));
  const base: RunConfigInput = file.preset ? loadPreset(file.preset) : (readJsonFile(resolve(dirname(filePath), file.config!), 'config file') as RunConfigInput);
  const trials = planTrials(file);
  const configs = trialConfigs(base, file, trials);
  const baseConfig = parseRunConfig(base);
  const problems = [metricProblem(file.metric, baseConfig), ...constraintFigureProblems(file.constraints ?? {}, baseConfig)].filter((p) => p !== undefined);
  if (problems.length) throw new SweepFileError(problems);
  const state = await runSweep({ file, filePath, base, trials, configs, runsDir: resolve(o.runsDir), backend: o.backend, stop: stopOnSignals(), say: (l) => process.stderr.write(`${l}\n`) });
  const table = resolve(o.runsDir, `${file.name}-sweep`, 'table.csv');
  const none = state.test && state.test.trial === undefined ? ` ${state.test.skipped}.` : '';
  process.stderr.write(state.state === 'stopped' ? 'sweep stopped: run the same command again to resume it\n' : `sweep finished:${none} table in ${table}\n`);
  if (o.json) process.stdout.write(`${JSON.stringify(SweepViewSchema.parse(state))}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(exitCodeFor(e));
  },
);
