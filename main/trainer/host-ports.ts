// Binds a TrainerHost to the channel its process was started with:
//  - Electron utility process: `process.parentPort` carries control messages, and each renderer
//    arrives as a MessagePortMain attached to a `connect` message (main wires a MessageChannelMain,
//    so the renderer and the host talk directly);
//  - Node child_process.fork (browser mode): the IPC channel carries control messages and the
//    renderers' commands, wrapped as `command` / `message` envelopes.
// Both are described by small structural types here, so this file imports no electron and the
// tests drive it with plain event emitters.
import { HostMessageSchema, ParentToHostSchema, type HostMessage, type HostToParent } from '../../common/protocol.ts';
import type { HostPort, TrainerHost } from './host.ts';

/** The parts of Electron's MessagePortMain the host uses. */
export interface MessagePortLike {
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  postMessage(message: unknown): void;
  start(): void;
  close(): void;
}

/** The parts of Electron's `process.parentPort` the host uses. */
export interface ParentPortLike {
  on(event: 'message', listener: (e: { data: unknown; ports: MessagePortLike[] }) => void): unknown;
  postMessage(message: unknown): void;
}

/** The parts of a forked Node process (`process`) the host uses. */
export interface ForkChannelLike {
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  /** Node reports a send on a closed channel to the callback (without one: an 'error' event, fatal). */
  send?(message: unknown, callback?: (error: Error | null) => void): boolean;
  /** False once the parent is gone (absent: assumed connected). */
  readonly connected?: boolean;
}

/** What to do once the host has stopped for a shutdown (the entry exits the process). */
export type AfterShutdown = () => void;

/**
 * The host's one shutdown sequence: stop the live run (stop-step checkpoint, stop event, metrics
 * flushed), tell the parent `shutdownDone`, then `exit`. Returns the trigger; whoever calls it
 * first (a `shutdown` message, a lost parent, a signal) starts it, later calls do nothing.
 */
export function shutdownOnce(host: TrainerHost, tell: (m: HostToParent) => void, exit: AfterShutdown): () => void {
  let started = false;
  return () => {
    if (started) return;
    started = true;
    void host.shutdown().finally(() => {
      tell({ type: 'shutdownDone' });
      exit();
    });
  };
}

/**
 * Calls `onGone` once when the parent process is gone although no channel said so (Electron's
 * utility process can outlive a crashed main): the parent pid read by `parentPid` changes when
 * the process is re-parented. Checks every `periodMs`; returns the function that stops watching.
 */
export function watchParentPid(parentPid: () => number, onGone: () => void, periodMs = 1000): () => void {
  const first = parentPid();
  const timer = setInterval(() => {
    if (parentPid() === first) return;
    clearInterval(timer);
    onGone();
  }, periodMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

/** Wraps a MessagePortMain as a HostPort; outgoing messages are checked against the protocol. */
export function messagePortAsHostPort(port: MessagePortLike): HostPort {
  return {
    post: (message: HostMessage) => port.postMessage(HostMessageSchema.parse(message)),
    listen: (listener) => {
      const onMessage = (e: { data: unknown }) => listener(e.data);
      port.on('message', onMessage);
      return () => port.off('message', onMessage);
    },
  };
}

/**
 * Serves `host` over Electron's parentPort: each `connect` message brings a renderer port, which
 * is attached until it closes; `shutdown` stops the run, answers `shutdownDone`, then calls `exit`.
 * Returns the shutdown trigger (see shutdownOnce) for the entry's other reasons to stop.
 */
export function serveOverParentPort(host: TrainerHost, parent: ParentPortLike, exit: AfterShutdown): () => void {
  const shutdown = shutdownOnce(host, (m) => parent.postMessage(m), exit);
  parent.on('message', (e) => {
    const parsed = ParentToHostSchema.safeParse(e.data);
    if (!parsed.success) {
      console.error(`trainer host: ignored a malformed control message: ${parsed.error.issues[0]?.message}`);
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'connect') {
      const port = e.ports[0];
      if (!port) {
        console.error('trainer host: a connect message came without a port');
        return;
      }
      const detach = host.attach(messagePortAsHostPort(port));
      port.on('close', detach);
      port.start();
    } else if (msg.type === 'shutdown') {
      shutdown();
    } else if (msg.type === 'heartbeat') {
      parent.postMessage({ type: 'heartbeat', id: msg.id } satisfies HostToParent);
    }
  });
  return shutdown;
}

/**
 * Serves `host` over a Node fork IPC channel: `command` envelopes go to the host, its messages
 * go back as `message` envelopes; `shutdown` (or the parent going away) stops the run, then `exit`.
 * Once the parent is gone, messages are dropped (never an ERR_IPC_CHANNEL_CLOSED 'error' event,
 * which would kill the host before the run is saved). Returns the shutdown trigger.
 */
export function serveOverFork(host: TrainerHost, channel: ForkChannelLike, exit: AfterShutdown): () => void {
  const dropped = () => undefined; // the parent is gone (channel closed): nobody is left to tell
  const send = (m: HostToParent) => {
    if (channel.connected === false) return;
    try {
      channel.send?.(m, dropped);
    } catch {
      dropped();
    }
  };
  let deliver: ((data: unknown) => void) | undefined;
  host.attach({
    post: (message) => send({ type: 'message', message: HostMessageSchema.parse(message) }),
    listen: (listener) => {
      deliver = listener;
      return () => (deliver = undefined);
    },
  });
  const shutdown = shutdownOnce(host, send, exit);
  channel.on('message', (data) => {
    const parsed = ParentToHostSchema.safeParse(data);
    if (!parsed.success) {
      console.error(`trainer host: ignored a malformed control message: ${parsed.error.issues[0]?.message}`);
      return;
    }
    if (parsed.data.type === 'command') deliver?.(parsed.data.command);
    else if (parsed.data.type === 'shutdown') shutdown();
    else if (parsed.data.type === 'heartbeat') send({ type: 'heartbeat', id: parsed.data.id });
  });
  channel.on('disconnect', shutdown);
  return shutdown;
}
