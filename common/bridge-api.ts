// The API the preload script exposes to the renderer as `window.dqn` (contextBridge). Narrow,
// typed functions only: the renderer never sees ipcRenderer or a raw port. Every message is
// parsed with its schema from common/protocol.ts on both sides of the bridge.
import type { RunConfigInput } from './config.ts';
import type { HostMessage, Preset } from './protocol.ts';

export interface DqnBridgeApi {
  trainer: {
    start(config: RunConfigInput): void;
    resume(runDir: string): void;
    stop(): void;
    /** Asks the host for its state (sent again after each reconnect). */
    hello(): void;
    listRuns(): void;
    openRun(runDir: string): void;
    /** Messages from the trainer host and its supervisor; returns the unsubscribe function. */
    onMessage(listener: (message: HostMessage) => void): () => void;
    /** Starts the trainer host again after the supervisor gave up restarting it. */
    restartHost(): void;
  };
  presets: {
    list(): Promise<Preset[]>;
    save(name: string, config: RunConfigInput): Promise<Preset[]>;
  };
}
