// Request/reply over the transport: a command carries a fresh id, and the trainer host answers
// it with one message type carrying the same id (or an `error` naming the command).
import type { HostCommandInput, HostMessage } from '../../common/protocol.ts';
import type { Transport } from '../transport/transport.ts';

type Reply<T extends HostMessage['type']> = Extract<HostMessage, { type: T }> & { id: number };

/**
 * Requests over `transport`: `command(id, ...args)` is sent; the `reply` message with that id
 * resolves the request with `value(message)`; an `error` for command type `commandType` rejects
 * every request still waiting, with the host's reason; a send that throws rejects at once.
 */
export function createHostRequester<T extends HostMessage['type'], A extends unknown[], V>(
  transport: Transport,
  reply: T,
  commandType: HostCommandInput['type'],
  command: (id: number, ...args: A) => HostCommandInput,
  value: (message: Reply<T>) => V,
): (...args: A) => Promise<V> {
  let nextId = 1;
  const waiting = new Map<number, { resolve: (v: V) => void; reject: (e: Error) => void }>();
  transport.subscribe((m) => {
    if (m.type === reply) {
      const r = m as Reply<T>;
      waiting.get(r.id)?.resolve(value(r));
      waiting.delete(r.id);
    } else if (m.type === 'error' && m.command === commandType) {
      for (const w of waiting.values()) w.reject(new Error(m.message));
      waiting.clear();
    }
  });
  return (...args) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      try {
        transport.send(command(id, ...args));
      } catch (e) {
        waiting.delete(id);
        reject(e as Error);
      }
    });
}
