// `npm run evaluate -- RUN_DIR [--checkpoint best|latest|NAME] [--span test|validation] [--json]`
// Evaluates one checkpoint of a run on one span (main/trainer/evaluate-checkpoint.ts): by default
// the checkpoint selection kept as the best by validation, on the held-out test span. Prints the
// trading evaluation as one line (labelled with its span), or with --json one JSON object.
import { Command } from 'commander';
import { resolve } from 'node:path';
import { oneOf, parseArgv } from './cli-args.ts';
import { exitCodeFor, exitCodesHelp } from './exit-codes.ts';
import { formatTradingEval, isTradingMetrics, tradingEvalReport, type EvalSpan } from '../../common/trading-eval.ts';
import { evaluateCheckpoint } from '../trainer/evaluate-checkpoint.ts';

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('npm run evaluate --')
    .description('Evaluate a checkpoint of a run on its validation or test span (CPU).')
    .argument('<run_dir>', 'the run folder')
    .option('--checkpoint <which>', "best (selection's choice: the highest validation return), latest, or a checkpoint file name such as epoch-3", 'best')
    .option('--span <span>', 'test (held out from every selection) or validation', oneOf('--span', ['test', 'validation']), 'test')
    .option('--json', 'print one JSON object instead of a line')
    .addHelpText('after', `\n${exitCodesHelp(false)}`);
  const refused = parseArgv(program, argv);
  if (refused !== undefined) return refused;
  const o = program.opts<{ checkpoint: string; span: EvalSpan; json?: boolean }>();
  const r = await evaluateCheckpoint(resolve(program.args[0]!), o.checkpoint, o.span);
  const trading = isTradingMetrics(r.metrics);
  if (o.json) {
    const { metrics, ...rest } = r;
    process.stdout.write(`${JSON.stringify({ ...rest, ...(trading ? { eval: tradingEvalReport(metrics, o.span) } : { metrics }) })}\n`);
  } else {
    const figures = trading ? formatTradingEval(r.metrics, o.span) : `${o.span} mean return ${r.eval_mean_return.toFixed(2)} over ${r.eval_episodes} episodes`;
    process.stdout.write(`${r.checkpoint} (epoch ${r.epoch}, step ${r.step}): ${figures}\n`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(exitCodeFor(e));
  },
);
