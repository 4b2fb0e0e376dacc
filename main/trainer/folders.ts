// Creating the folders the app writes to (runs, the trash, checkpoints, evaluation curves, user
// data) without Node's recursive mkdir, which spins forever at 100 % CPU on some paths (under
// /proc it retries the parent that exists but refuses children, issue 26 item 2) and ignores
// signals while it does. The first existing ancestor must be a writable folder; the missing
// levels below it are then created one at a time, so every failure is an error with its cause.
import { accessSync, constants, lstatSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fsCause } from './fs-cause.ts';

/**
 * Creates the folder `path` and its missing parents (like `mkdir -p`); does nothing when it is
 * a folder already.
 * @throws Error "cannot create folder <path>: ..." naming the first existing ancestor and what is
 *   wrong with it (not a folder, not writable, refuses new folders) and saying what to fix.
 */
export function makeFolder(path: string): void {
  const target = resolve(path);
  const missing: string[] = [];
  let ancestor = target;
  for (;;) {
    const st = statOrUndefined(ancestor);
    if (st) {
      if (!st.isDirectory()) throw refusal(target, `${ancestor} is not a folder`);
      break;
    }
    missing.unshift(ancestor);
    const parent = dirname(ancestor);
    if (parent === ancestor) throw refusal(target, `its root ${ancestor} does not exist`);
    ancestor = parent;
  }
  if (missing.length === 0) return;
  try {
    accessSync(ancestor, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw refusal(target, `${ancestor} is not writable by this user (${fsCause(e)})`);
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir); // one level, never recursive
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && statOrUndefined(dir)?.isDirectory()) continue; // made by another process meanwhile
      throw refusal(target, `${dirname(dir)} does not accept a new folder there (${fsCause(e)})`);
    }
  }
}

/** Whether `path` is a folder itself, not a link to one. */
export function isRealFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The run's own folder `<runDir>/<name>` (checkpoints, eval), created when missing.
 * @returns its path.
 * @throws Error when a link or a file stands there (a run never writes through a link, issue 26
 *   item 6); fs errors from the mkdir.
 */
export function makeRunSubfolder(runDir: string, name: string): string {
  const dir = join(runDir, name);
  try {
    mkdirSync(dir); // one level: the run folder exists
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (!isRealFolder(dir)) throw new Error(`${dir} is a link or not a folder: a run writes only into folders of its own`);
  return dir;
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined; // missing (ENOTDIR: a file above it, found as the ancestor)
    throw refusal(path, fsCause(e));
  }
}

function refusal(path: string, why: string): Error {
  return new Error(`cannot create folder ${path}: ${why}; pass a folder you can write to`);
}
