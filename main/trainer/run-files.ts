// Renaming a run folder and moving one to the trash (issue 16, item 4). Both act on folders the
// paths policy already resolved inside the runs folder (resolveRunDir); a new name must be a
// plain name (checkPlainName: no '/', no '..', not hidden) that no other entry of the runs folder
// has. Deleted runs are moved to `<runsDir>/.trash/` (hidden, so never listed as a run), where a
// person can still get them back.
import { existsSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { keepRunId } from './checkpoint.ts';
import { makeFolder } from './folders.ts';
import { checkPlainName } from './paths-policy.ts';

/** The trash folder of a runs folder. */
export const trashDir = (runsDir: string) => join(runsDir, '.trash');

/**
 * Renames the run folder `runDir` (inside `runsDir`) to `name`.
 * @returns the new folder's path.
 * @throws Error when the name is not a plain name, or a run or file of that name exists.
 */
export function renameRunDir(runsDir: string, runDir: string, name: string): string {
  checkPlainName(name, `new run name '${name.slice(0, 120)}'`);
  if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(name) || name.length > 128) throw new Error(`new run name '${name.slice(0, 120)}': use at most 128 letters, digits, ".", "_" and "-", starting with a letter, digit or "_"`);
  const target = join(runsDir, name);
  if (existsSync(target)) throw new Error(`a run named '${name}' already exists in ${runsDir}: pick another name`);
  keepRunId(runDir); // its checkpoints name the run by its old folder name: they still load after the move
  renameSync(runDir, target);
  return target;
}

/**
 * Moves the run folder `runDir` (inside `runsDir`) to the trash folder, under its own name (with
 * `-<ms>` added when the trash already holds that name).
 * @returns the folder's path in the trash.
 */
export function trashRunDir(runsDir: string, runDir: string, nowMs = Date.now()): string {
  const trash = trashDir(runsDir);
  makeFolder(trash);
  let target = join(trash, basename(runDir));
  if (existsSync(target)) target = `${target}-${nowMs}`;
  renameSync(runDir, target);
  return target;
}
