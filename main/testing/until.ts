// Test helper: waits for a state (a value a check finds), never for a fixed time.

/**
 * Polls `check` every 20 ms until it returns a value other than undefined or false.
 * @throws Error "timed out waiting for <what>" after `limitMs` (a bound for a broken case, not a wait).
 */
export async function until<T>(check: () => T | undefined | false, what: string | (() => string), limitMs = 90_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - t0 > limitMs) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
