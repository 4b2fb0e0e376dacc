// Command-line parsing shared by the headless CLIs (train, evaluate, sweep): choice options that
// name what they take, and commander's exit code for a bad (or --help) command line.
import { InvalidArgumentError, type Command } from 'commander';

/** A commander option parser that takes one of `choices`. @throws InvalidArgumentError "`flag` must be a, b or c, got 'x'". */
export function oneOf<T extends string>(flag: string, choices: readonly T[]): (v: string) => T {
  return (v) => {
    if (!(choices as readonly string[]).includes(v)) throw new InvalidArgumentError(`${flag} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, got '${v}'`);
    return v as T;
  };
}

/** Parses `argv` (the user's words) with `program`; returns commander's exit code when it refused them or printed help, else undefined. */
export function parseArgv(program: Command, argv: string[]): number | undefined {
  try {
    program.exitOverride().parse(argv, { from: 'user' });
    return undefined;
  } catch (e) {
    return (e as { exitCode?: number }).exitCode ?? 2;
  }
}
