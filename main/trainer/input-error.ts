// The error of input a user gave that cannot be used: a name, a file or a folder named on the
// command line or in a config (a preset, a config or data file, a run folder to resume). The
// headless CLIs exit 2 on it, the usage-error code, as on an invalid config or a bad flag
// (main/cli/exit-codes.ts); a failure while running (a GPU, a disk) stays a plain Error, exit 1.

/** What the user named cannot be used; the message says what, and how to fix it where it can. */
export class InputError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InputError';
  }
}
