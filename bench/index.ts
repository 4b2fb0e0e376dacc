// Benchmark dispatcher: `npm run bench -- <name> [options]` runs bench/<name>.ts. Each bench
// module exports `run(args)` and a one-line `summary`; register new ones in BENCHES below.
// No timing assertions live in tests: speed is measured here and logged in bench/RESULTS.md.
import * as collect from './collect.ts';
import * as dashboard from './dashboard.ts';
import * as replay from './replay.ts';
import * as step from './step.ts';
import * as train from './train.ts';

/** A registered benchmark. */
export interface Bench {
  /** One line shown by `npm run bench`. */
  summary: string;
  /** Runs with the arguments after the bench name; throws on bad arguments. */
  run(args: string[]): Promise<void> | void;
}

const BENCHES: Record<string, Bench> = { replay, train, step, collect, dashboard };

function usage(): string {
  const lines = Object.entries(BENCHES).map(([name, b]) => `  ${name.padEnd(12)} ${b.summary}`);
  return `usage: npm run bench -- <name> [options]\n\nbenchmarks:\n${lines.join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h') {
    console.log(usage());
    return name ? 0 : 1;
  }
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark '${name}'\n\n${usage()}`);
    return 1;
  }
  await bench.run(args);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  },
);
