// What `npm run train` says after its last line: where the run (or the group of runs) went and
// what to type next, so a user need not scroll back to the run folder printed at the start:
//
//   stopped after 4138 steps, 17552 env steps, 5s
//   run folder: runs/20261204-091202-cartpole
//   resume: npm run train -- --resume runs/20261204-091202-cartpole
//   view: npm run serve, then open the URL it prints with &run=20261204-091202-cartpole added
//
// Only a stopped run (Ctrl-C, a checkpoint kept) is offered a resume: a finished run is complete
// (one that reached schedule.target_return refuses to resume) and a halted one failed.
import { basename, isAbsolute, relative } from 'node:path';
import type { RunSummary } from './summary.ts';

/** Where the runs went and where the printed commands will run. */
export interface NextContext {
  /** The runs folder the CLI wrote to (absolute). */
  runsDir: string;
  /** The runs folder `npm run serve` lists when given no --runs-dir: $DQN_RUNS_DIR or <repo>/runs (paths.ts defaultRunsDir). */
  serveRunsDir: string;
  /** The folder `npm run` resolves paths against (the package root, where npm runs the scripts). */
  cwd: string;
}

/** A run of a group (a seed or a fold) as the next-step lines need it. */
export interface MemberRun {
  /** Names the member in its resume line: `seed 6`, `fold 1`. */
  label: string;
  state: RunSummary['state'];
  run_dir: string;
}

/**
 * `path` as a command argument: relative to `cwd` when inside it (shorter), else absolute, in
 * single quotes when it holds a character the shell would read.
 */
export function commandPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  const shown = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  return /^[\w@%+=:,./-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", "'\\''")}'`;
}

/** `npm run serve`, with `-- --runs-dir DIR` when the runs went elsewhere than where serve looks by default. */
function serveCommand(ctx: NextContext): string {
  return ctx.runsDir === ctx.serveRunsDir ? 'npm run serve' : `npm run serve -- --runs-dir ${commandPath(ctx.runsDir, ctx.cwd)}`;
}

/** The resume command of a run folder. */
function resumeCommand(runDir: string, ctx: NextContext): string {
  return `npm run train -- --resume ${commandPath(runDir, ctx.cwd)}`;
}

/**
 * The lines after one run's last line: its folder, `resume: ...` when it stopped (it kept a
 * checkpoint), and how to see it in the dashboard (serve's page opens the run named by `&run=`).
 */
export function runNextLines(run: Pick<RunSummary, 'state' | 'run_dir'>, ctx: NextContext): string[] {
  const name = basename(run.run_dir);
  return [
    `run folder: ${commandPath(run.run_dir, ctx.cwd)}`,
    ...(run.state === 'stopped' ? [`resume: ${resumeCommand(run.run_dir, ctx)}`] : []),
    `view: ${serveCommand(ctx)}, then open the URL it prints with &run=${name} added`,
  ];
}

/**
 * The lines after a seed group's summary: a resume line for each member that stopped (each
 * resumes as a run of its own; the group's summary file is not rewritten), then how to see the
 * group (named by its summary file, `<stamp>-<name>-seeds`) in the dashboard's run history.
 */
export function seedGroupNextLines(group: string, members: readonly MemberRun[], ctx: NextContext): string[] {
  return [...resumeLines(members, ctx), `view: ${serveCommand(ctx)}, then open the group ${group} in the run history`];
}

/** The lines after a walk-forward summary: a resume line for each fold that stopped, then the folds' runs to open (none: no fold started). */
export function foldsNextLines(members: readonly MemberRun[], ctx: NextContext): string[] {
  const names = members.map((m) => basename(m.run_dir));
  if (names.length === 0) return [];
  return [...resumeLines(members, ctx), `view: ${serveCommand(ctx)}, then open the run${names.length === 1 ? '' : 's'} ${names.join(', ')} in the run history`];
}

/** `resume seed 6: npm run train -- --resume DIR` for each member that stopped. */
function resumeLines(members: readonly MemberRun[], ctx: NextContext): string[] {
  return members.filter((m) => m.state === 'stopped').map((m) => `resume ${m.label}: ${resumeCommand(m.run_dir, ctx)}`);
}
