// The exit codes of the headless CLIs (train, sweep, evaluate), one rule for all: 2 when what the
// user typed or named is wrong (the usage-error convention: a flag, a preset, a config, sweep or
// data file, a run folder to resume), 1 when a command that was right failed while running or on
// this machine, 3 when a run halted on a NaN or Inf.
import { ConfigError } from '../../common/config.ts';
import { SweepFileError } from '../../common/sweep.ts';
import { InputError } from '../trainer/input-error.ts';

/** The exit codes by meaning. */
export const EXIT = { ok: 0, failed: 1, usage: 2, halted: 3 } as const;

/** The exit code of an error that ended a CLI: EXIT.usage for the user's input (InputError, ConfigError, SweepFileError), else EXIT.failed. */
export function exitCodeFor(e: unknown): number {
  return e instanceof InputError || e instanceof ConfigError || e instanceof SweepFileError ? EXIT.usage : EXIT.failed;
}

/** The exit codes as --help's epilogue says them (`halted`: whether the CLI trains, so that a run can halt). */
export function exitCodesHelp(halted: boolean): string {
  return [
    'Exit codes:',
    `  0  done${halted ? ' (finished, or stopped by Ctrl-C with a checkpoint kept)' : ''}`,
    '  1  failed while running or on this machine (no usable GPU for --backend cuda, a folder that',
    '     cannot be written, too little memory, a GPU or disk error)',
    '  2  usage error: a bad flag or flag value, or a preset, config, sweep, data file or run folder',
    '     that cannot be used (not found, not JSON, invalid)',
    ...(halted ? ['  3  a run halted (NaN or Inf; its last good checkpoint kept)'] : []),
  ].join('\n');
}
