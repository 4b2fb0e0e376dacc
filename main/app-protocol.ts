// The desktop app loads its renderer from app://dqn/ (protocol.handle) instead of file:// (the
// Electron security checklist: a file:// page may read any local file the OS lets it, and every
// file:// page shares one origin). Only the built renderer's files are served, GET and HEAD
// only; anything else is 400, 403, 404 or 405. Nothing here imports electron: main/index.ts
// hands the `protocol` module in, tests a fake.
import { readFile } from 'node:fs/promises';
import { contentTypeOf, fileInsideFolder, PAGE_CSP, parseTarget, SECURITY_HEADERS } from './static-files.ts';

/** The scheme, its one host, and the page URL the window loads. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'dqn';
export const APP_PAGE_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * For protocol.registerSchemesAsPrivileged (before the app is ready): a standard, secure scheme
 * (relative URLs, a real origin for the CSP's 'self') that may be fetched in CORS mode (Vite's
 * `<script type="module" crossorigin>`; answers carry no Access-Control header, so another
 * origin still cannot read them).
 */
export const APP_SCHEME_PRIVILEGES = { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } } as const;

/** The part of Electron's `protocol` module used here. */
export interface ProtocolLike {
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
}

/** The part of a fetch Request used here. */
export type AppRequest = Pick<Request, 'url' | 'method'>;

/**
 * Answers one app:// request from the files of `rendererDir`: 200 with the file (the page with
 * the CSP header), 400 for a malformed URL or path, 403 for another host, 404 for a path that is
 * not a regular file inside the folder (symlinks out of it included), 405 for a method other
 * than GET or HEAD. Never throws.
 */
export async function appFileResponse(rendererDir: string, request: AppRequest): Promise<Response> {
  const fail = (status: number, text: string) => new Response(`${text}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS } });
  try {
    if (request.method !== 'GET' && request.method !== 'HEAD') return fail(405, 'method not allowed');
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return fail(400, 'bad request');
    }
    if (url.protocol !== `${APP_SCHEME}:`) return fail(400, 'bad request');
    if (url.host !== APP_HOST) return fail(403, 'unknown host');
    // The URL parser already folded `.` and `..` segments; parseTarget refuses what is left odd.
    const target = parseTarget(url.pathname);
    if (!target) return fail(400, 'bad request');
    const path = target.path === '/' ? '/index.html' : target.path;
    const file = fileInsideFolder(rendererDir, path);
    if (!file) return fail(404, 'not found');
    const headers: Record<string, string> = { 'Content-Type': contentTypeOf(file), ...SECURITY_HEADERS };
    if (path === '/index.html') Object.assign(headers, { 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store' });
    return new Response(request.method === 'HEAD' ? null : await readFile(file), { status: 200, headers });
  } catch {
    return fail(500, 'internal error');
  }
}

/** Serves `rendererDir` on app:// (call once the app is ready). */
export function handleAppProtocol(protocol: ProtocolLike, rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => appFileResponse(rendererDir, request));
}
