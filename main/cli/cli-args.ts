// Command-line parsing shared by the headless CLIs (train, evaluate, sweep): choice options that
// name what they take, and the exit code of a bad (or --help) command line.
import { InvalidArgumentError, type Command } from 'commander';
import { EXIT } from './exit-codes.ts';

/** A commander option parser that takes one of `choices`. @throws InvalidArgumentError "`flag` must be a, b or c, got 'x'". */
export function oneOf<T extends string>(flag: string, choices: readonly T[]): (v: string) => T {
  return (v) => {
    if (!(choices as readonly string[]).includes(v)) throw new InvalidArgumentError(`${flag} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, got '${v}'`);
    return v as T;
  };
}

/**
 * Parses `argv` (the user's words) with `program`; returns the exit code when it refused them
 * (2, the usage-error code: commander's own is 1, which the CLIs keep for failures while running)
 * or printed help or the version (0), else undefined.
 */
export function parseArgv(program: Command, argv: string[]): number | undefined {
  try {
    program.exitOverride().parse(argv, { from: 'user' });
    return undefined;
  } catch (e) {
    return (e as { exitCode?: number }).exitCode === 0 ? 0 : EXIT.usage;
  }
}
