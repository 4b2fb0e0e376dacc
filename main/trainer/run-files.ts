// Renaming a run folder and moving one to the trash (issue 16, item 4). Both act on folders the
// paths policy already resolved inside the runs folder (resolveRunDir), and only on run folders:
// a folder itself (not a link) with a valid config.json, as the run history lists them, never
// another entry of the runs folder (a seeds summary, a user's notes: issue 26 item 6). A new
// name must be a plain name (checkPlainName: no '/', no '..', not hidden) that no other entry of
// the runs folder has. Deleted runs are moved to `<runsDir>/.trash/` (hidden, so never listed as
// a run), where a person can still get them back.
import { existsSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { keepRunId } from './checkpoint.ts';
import { isRealFolder, makeFolder } from './folders.ts';
import { checkPlainName } from './paths-policy.ts';
import { readRunConfig } from './run-dir.ts';

/** The trash folder of a runs folder. */
export const trashDir = (runsDir: string) => join(runsDir, '.trash');

/**
 * Refuses what is not a run folder: a link, a file, or a folder without a valid config.json.
 * @throws Error "'<name>' is not a run folder ..." saying what is moved instead.
 */
function checkRunFolder(runDir: string): void {
  let why = '';
  if (!isRealFolder(runDir)) why = 'not a folder of its own: a file or a link';
  else {
    try {
      readRunConfig(runDir);
    } catch {
      why = 'no valid config.json'; // its issues would quote the file: the run history does not list it either
    }
  }
  if (why) throw new Error(`'${basename(runDir)}' is not a run folder (${why}): only runs are renamed or moved to the trash`);
}

/**
 * Renames the run folder `runDir` (inside `runsDir`) to `name`.
 * @returns the new folder's path.
 * @throws Error when `runDir` is not a run folder (checkRunFolder), the name is not a plain name,
 *   or a run or file of that name exists.
 */
export function renameRunDir(runsDir: string, runDir: string, name: string): string {
  checkRunFolder(runDir);
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
 * @throws Error when `runDir` is not a run folder (checkRunFolder).
 */
export function trashRunDir(runsDir: string, runDir: string, nowMs = Date.now()): string {
  checkRunFolder(runDir);
  const trash = trashDir(runsDir);
  makeFolder(trash);
  let target = join(trash, basename(runDir));
  if (existsSync(target)) target = `${target}-${nowMs}`;
  renameSync(runDir, target);
  return target;
}
