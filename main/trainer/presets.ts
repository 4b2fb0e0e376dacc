// Bundled config presets (resources/presets/<name>.json).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfigInput } from '../../common/config.ts';
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
 * @throws Error listing the available presets when `name` is unknown; when the name is not plain
 *   (folders, '..', hidden) or the file lies outside `dir` (symlinks followed), is not a regular
 *   file or holds more than MAX_PRESET_BYTES; or naming the JSON error.
 */
export function loadPreset(name: string, dir = PRESETS_DIR): RunConfigInput {
  const path = resolveInsideFolder(dir, name, '.json', 'preset');
  if (!existsSync(path)) throw new Error(`unknown preset '${name}': available presets are ${listPresets(dir).join(', ') || '(none)'}`);
  const st = statSync(path);
  if (!st.isFile()) throw new Error(`preset '${name}' is not a regular file`);
  if (st.size > MAX_PRESET_BYTES) throw new Error(`preset '${name}' holds ${st.size} bytes, more than a preset may (${MAX_PRESET_BYTES})`);
  return readJsonFile(path) as RunConfigInput;
}

/** Parses a JSON file; the error names the file. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
  return parseJsonText(text, path);
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
