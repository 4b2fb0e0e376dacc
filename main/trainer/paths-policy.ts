// Which files a client may name (DESIGN section 9). The front end that received a message
// decides the policy: the browser-mode server and the Electron host restrict run names to the
// runs folder, presets to the presets folder and `env.data` to the allowed data folders; the CLI
// with a local config reads any file its user names. Every check resolves symlinks
// (fs.realpathSync) before it compares folders.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * A plain file or folder name: not empty, no path separator, not `.`/`..`, not hidden.
 * @throws Error saying what is wrong, prefixed by `what` (e.g. "preset 'x'").
 */
export function checkPlainName(name: string, what: string): void {
  if (name === '' || /[/\\\0]/.test(name)) throw new Error(`${what} must be a plain name (no folders)`);
  if (name.startsWith('.')) throw new Error(`${what} must not start with '.' (no hidden files, no '..')`);
}

/** True when `path` is `dir` or lies below it (both already resolved). */
function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** realpathSync, or undefined when the path does not exist or cannot be resolved. */
function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The run folder a client names (a run name, or a path as listRuns reports it): it must be a
 * direct child of `runsDir` after symlinks are followed, and its name must not be hidden or `..`.
 * @returns the folder as `<runsDir>/<name>` (the form listRuns reports).
 * @throws Error "run 'x' is not inside the runs folder" (or why the name is refused).
 */
export function resolveRunDir(runsDir: string, runDir: string): string {
  const outside = new Error(`run '${clipText(runDir, 120)}' is not inside the runs folder ${runsDir}`);
  const lexical = resolve(runsDir, runDir);
  if (dirname(lexical) !== resolve(runsDir)) throw outside;
  checkPlainName(basename(lexical), `run '${clipText(runDir, 120)}'`);
  const realRuns = realOrUndefined(runsDir);
  const real = realOrUndefined(lexical);
  if (!realRuns || !real) throw new Error(`run '${clipText(runDir, 120)}' does not exist in the runs folder ${runsDir}`);
  if (dirname(real) !== realRuns) throw outside;
  return lexical;
}

/**
 * A file inside `dir` named by a client (`<dir>/<name><ext>`): a plain, non-hidden name whose
 * real path (symlinks followed) stays inside `dir`. A missing file passes (the caller reports it).
 * @throws Error naming `what` when the name or the real path is refused.
 */
export function resolveInsideFolder(dir: string, name: string, ext: string, what: string): string {
  checkPlainName(name, `${what} '${clipText(name, 120)}'`);
  const path = join(dir, `${name}${ext}`);
  const real = realOrUndefined(path);
  const realDir = realOrUndefined(dir);
  if (real && (!realDir || !isInside(real, realDir))) throw new Error(`${what} '${clipText(name, 120)}' is not inside the ${what}s folder ${dir}`);
  return path;
}

/**
 * Resolves a client's `env.data` (relative paths against `base`, the repository root) and checks
 * that its real path lies inside one of `allowedDirs`; `undefined` allows any file (the CLI).
 * @returns the real path of the file to read.
 * @throws Error "env.data must be inside one of: ..." when it lies elsewhere, or when it does not exist.
 */
export function resolveDataPath(data: string, base: string, allowedDirs: readonly string[] | undefined): string {
  const path = resolve(base, data);
  if (!allowedDirs) return path;
  const real = realOrUndefined(path);
  if (!real) throw new Error(`env.data: file not found: ${clipText(data, 200)}`);
  const roots = allowedDirs.map(realOrUndefined).filter((d): d is string => d !== undefined);
  if (!roots.some((root) => isInside(real, root) && real !== root)) throw new Error(`env.data must be inside one of: ${allowedDirs.join(', ')} (got ${clipText(data, 200)})`);
  return real;
}

/** How many characters of file content (or of a client's string) a message quotes at most. */
export const EXCERPT_CHARS = 80;

/**
 * Text safe to put in a message: control and format characters (newlines, escapes, bidi
 * overrides) become '?', and anything past `max` characters becomes '...'.
 */
export function clipText(text: string, max = EXCERPT_CHARS): string {
  const chars = Array.from(text);
  const clipped = chars.length > max ? `${chars.slice(0, max).join('')}...` : text;
  return clipped.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '?');
}
