// The built renderer's files as both front ends serve them: browser mode over HTTP
// (main/serve/server.ts) and the desktop app over its app:// protocol (main/app-protocol.ts).
// A requested path resolves inside the renderer folder only (symlinks followed, regular files).
import { realpathSync, statSync } from 'node:fs';
import { extname, resolve, sep } from 'node:path';

/** Header CSP of the page (the page also carries it as a meta tag). */
export const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers every answer carries. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cross-Origin-Opener-Policy': 'same-origin', 'X-Frame-Options': 'DENY' } as const;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Content-Type of a served file, by extension (application/octet-stream when unknown). */
export function contentTypeOf(file: string): string {
  return TYPES[extname(file)] ?? 'application/octet-stream';
}

/**
 * The real path of the regular file at URL path `path` ("/assets/app.js") under `folder`, or
 * null when there is none: missing, a folder, or outside `folder` (a `..` or a symlink out of it).
 */
export function fileInsideFolder(folder: string, path: string): string | null {
  try {
    const root = realpathSync(folder);
    const file = realpathSync(resolve(root, `.${path}`));
    return file.startsWith(root + sep) && statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** Longest request target (path and query) served; longer ones get 400 (paths here are short). */
const MAX_TARGET_LENGTH = 2048;

/**
 * Splits a request target into its decoded path and its query, or returns null when it is not a
 * plain absolute path: too long, not starting with one `/`, bad percent-encoding, or a decoded
 * path with an empty, `.` or `..` segment, a backslash or a control character (NUL included).
 */
export function parseTarget(raw: string | undefined): { path: string; query: URLSearchParams } | null {
  if (!raw || raw.length > MAX_TARGET_LENGTH || !raw.startsWith('/')) return null;
  const q = raw.indexOf('?');
  let path: string;
  try {
    path = decodeURIComponent(q < 0 ? raw : raw.slice(0, q));
  } catch {
    return null;
  }
  // eslint-disable-next-line no-control-regex
  if (/\/\/|\\|[\x00-\x1f\x7f]|\/\.\.?(\/|$)/.test(path)) return null;
  return { path, query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}
