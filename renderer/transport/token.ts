// The browser-mode session token on the page's side (issue 26 item 5). The token arrives once in
// the URL printed by `npm run serve` (`/?token=...`); the page keeps it in its origin's own
// localStorage, which is per scheme, host and port, so no other server on this machine (another
// port of 127.0.0.1, where cookies would have gone too) ever receives it, and sends it only in
// the WebSocket handshake. A bookmark without the token then works in the same browser profile.

/** Key of the token in the page origin's localStorage. */
export const TOKEN_KEY = 'dqn-token';

/** What the page tells the user when it has no token to connect with. */
export const NO_TOKEN = 'this page needs the token: open the URL `npm run serve` printed (…/?token=…) once in this browser';

/**
 * The token for the page at `href`: the URL's `token` (then kept in `storage`, and the address
 * shown becomes `href` without it through `replaceUrl`, keeping any `?run=`), else the one kept
 * in `storage`; undefined when neither has one.
 */
export function pageToken(href: string, storage: Pick<Storage, 'getItem' | 'setItem'>, replaceUrl: (url: string) => void): string | undefined {
  const url = new URL(href);
  const given = url.searchParams.get('token');
  if (given) {
    storage.setItem(TOKEN_KEY, given);
    url.searchParams.delete('token');
    replaceUrl(url.toString());
    return given;
  }
  return storage.getItem(TOKEN_KEY) ?? undefined;
}
