// The one interface the dashboard talks through. Electron: the preload's `window.dqn` (a direct
// MessagePort to the trainer host). Browser mode: a WebSocket to `npm run serve`. The React code
// is the same in both modes.
import type { RunConfigInput } from '../../common/config.ts';
import type { HostCommandInput, HostMessage, Preset } from '../../common/protocol.ts';

/** Connection to the trainer host as the header shows it. */
export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface Transport {
  readonly kind: 'electron' | 'browser';
  /** Sends a command to the trainer host. @throws Error when not connected. */
  send(command: HostCommandInput): void;
  /** Messages from the trainer host and its supervisor; returns the unsubscribe function. */
  subscribe(listener: (message: HostMessage) => void): () => void;
  /** Connection changes; the listener is called at once with the current state. */
  onConnection(listener: (state: ConnectionState, detail?: string) => void): () => void;
  listPresets(): Promise<Preset[]>;
  /** Saves a user preset; resolves to the new list. */
  savePreset(name: string, config: RunConfigInput): Promise<Preset[]>;
  /**
   * Asks the supervisor to start the trainer host again after it gave up restarting it (a
   * `hostExit` with `restarting: false`); a `hostReady` follows. @throws Error when not connected.
   */
  restartHost(): void;
}
