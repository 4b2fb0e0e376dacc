// Bundled config presets (resources/presets/<name>.json).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfigInput } from '../../common/config.ts';
import { closestName } from '../../common/config-problems.ts';
import { fsCause } from './fs-cause.ts';
import { InputError } from './input-error.ts';
import { REPO_ROOT } from './paths.ts';
import { resolveInsideFolder } from './paths-policy.ts';

export const PRESETS_DIR = join(REPO_ROOT, 'resources', 'presets');

/**
 * Largest preset file read, in bytes. A full config is about 2.3 KB and a preset saved from the
 * dashboard fits one client message (16 KiB); a larger file was not written by this app.
 */
export const MAX_PRESET_BYTES = 64 * 1024;

/** Names of the presets in `dir` (bundled by default), sorted; hidden files are not presets. */
export function listPresets(dir = PRESETS_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).map((f) => f.slice(0, -5)).sort();
}

/**
 * Reads a preset as written (not yet validated).
 * @throws InputError listing the available presets when `name` is unknown (first the closest
 *   name when one is near: "unknown preset 'cartpol': did you mean cartpole? available presets
 *   are ..."); when the name is not plain (folders, '..', hidden) or the file lies outside `dir`
 *   (symlinks followed), is not a regular file or holds more than MAX_PRESET_BYTES; or naming the
 *   JSON error.
 */
export function loadPreset(name: string, dir = PRESETS_DIR): RunConfigInput {
  let path: string;
  try {
    path = resolveInsideFolder(dir, name, '.json', 'preset');
  } catch (e) {
    throw new InputError((e as Error).message, { cause: e });
  }
  if (!existsSync(path)) {
    const names = listPresets(dir);
    const near = closestName(name, names);
    throw new InputError(`unknown preset '${name}': ${near ? `did you mean ${near}? ` : ''}available presets are ${names.join(', ') || '(none)'}`);
  }
  const st = statSync(path);
  if (!st.isFile()) throw new InputError(`preset '${name}' is not a regular file`);
  if (st.size > MAX_PRESET_BYTES) throw new InputError(`preset '${name}' holds ${st.size} bytes, more than a preset may (${MAX_PRESET_BYTES})`);
  return readJsonFile(path, 'preset file') as RunConfigInput;
}

/**
 * Parses the JSON file `path` that a user named; `what` names it in errors ('config file').
 * Symbolic links are followed (a user's own file).
 * @throws InputError in a few words, as the OHLCV loader says them: "config file not found: X",
 *   "config file is a folder, not a file: X", "config file is not a regular file: X" (a FIFO or
 *   a device, refused before a read could block), "config file cannot be read (permission
 *   denied): X", else "cannot read config file X: <cause>"; or parseJsonText's error.
 */
export function readJsonFile(path: string, what = 'file'): unknown {
  let text: string;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new InputError(`${what} is a folder, not a file: ${path}`);
    if (!st.isFile()) throw new InputError(`${what} is not a regular file: ${path}`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError(`${what} not found: ${path}`, { cause: e });
    if (code === 'EACCES' || code === 'EPERM') throw new InputError(`${what} cannot be read (permission denied): ${path}`, { cause: e });
    throw new InputError(`cannot read ${what} ${path}: ${fsCause(e)}`, { cause: e });
  }
  return parseInputJsonText(text, path);
}

/**
 * parseJsonText for a file the user named or gave (a config or preset file, a run folder's
 * config.json): its error is the user's to fix. @throws InputError with parseJsonText's message.
 */
export function parseInputJsonText(text: string, path: string): unknown {
  try {
    return parseJsonText(text, path);
  } catch (e) {
    throw new InputError((e as Error).message, { cause: (e as Error).cause });
  }
}

/**
 * Parses the JSON text of the file `path`.
 * @throws Error "<path> is not valid JSON (line L, column C)": the place, never the text (JSON.parse's
 *   own message quotes the file, DESIGN section 9); a bare NaN or Infinity (JSON.parse gives
 *   NaN no position) is named with its place and what to write instead.
 */
export function parseJsonText(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const at = /at position (\d+)/.exec((e as Error).message)?.[1];
    // JSON.parse stops at the first error: a bare NaN or Infinity before where it stopped is it.
    const bare = bareNonFinite(text);
    const where =
      bare && (at === undefined || bare.at <= Number(at))
        ? ` (${lineColumn(text, bare.at)}: ${bare.token} is not a number in JSON, which has no NaN or Infinity: write a finite number)`
        : at !== undefined
          ? ` (${lineColumn(text, Number(at))})`
          : '';
    throw new Error(`${path} is not valid JSON${where}`, { cause: e });
  }
}

/** "line L, column C" (both from 1) of the character at `offset` of `text`. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** The first NaN, Infinity or -Infinity outside a string of `text`, as JavaScript writes them. */
function bareNonFinite(text: string): { at: number; token: string } | undefined {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else {
      const token = /^(?:NaN|-?Infinity)/.exec(text.slice(i, i + 9))?.[0];
      if (token) return { at: i, token };
    }
  }
  return undefined;
}
