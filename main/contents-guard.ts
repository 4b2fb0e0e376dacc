// Every webContents of the desktop app stays on its page (the Electron security checklist): no
// navigation of the window or of any frame (will-navigate, will-frame-navigate), no redirects,
// no new windows (setWindowOpenHandler), no <webview>. Nothing here imports electron: main
// passes each webContents in, tests a fake.

/** A cancellable Electron event, and the URL it is about where it has one. */
export interface GuardedEvent {
  preventDefault(): void;
  url?: string;
}

/** The part of Electron's WebContents used here. */
export interface ContentsLike {
  on(event: 'will-navigate' | 'will-frame-navigate' | 'will-redirect' | 'will-attach-webview', listener: (event: GuardedEvent, ...rest: unknown[]) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

/** Events that are always refused. */
export const DENIED_EVENTS = ['will-navigate', 'will-frame-navigate', 'will-redirect', 'will-attach-webview'] as const;

/**
 * Refuses every navigation, redirect, new window and webview of `contents`; `onDenied` hears
 * what was refused (for the log), e.g. ("will-navigate", "https://example.com/").
 */
export function guardContents(contents: ContentsLike, onDenied: (what: string, url: string) => void = () => undefined): void {
  contents.setWindowOpenHandler(({ url }) => {
    onDenied('window.open', url);
    return { action: 'deny' };
  });
  for (const name of DENIED_EVENTS)
    contents.on(name, (event, second) => {
      event.preventDefault();
      // will-navigate and will-frame-navigate carry the URL on the event (Electron >= 25); older
      // signatures pass it as the second argument.
      onDenied(name, event.url ?? (typeof second === 'string' ? second : ''));
    });
}
