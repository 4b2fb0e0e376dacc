// Asks the trainer host for the per-bar curves of one trading evaluation (`evalCurves` ->
// `evalCurves`, main/trainer/eval-curves.ts): they live in the run folder, one file per epoch.
import type { EvalCurves } from '../../common/trading-curves.ts';
import type { Transport } from '../transport/transport.ts';

/** The curves of epoch `epoch`'s evaluation in run `runDir`, or null when it kept none. */
export type EvalCurvesRequest = (runDir: string, epoch: number) => Promise<EvalCurves | null>;

/**
 * An EvalCurvesRequest over `transport`: answered by the `evalCurves` message with its id; an
 * `error` for `evalCurves` rejects the requests still waiting, with the host's reason.
 */
export function createEvalCurvesRequester(transport: Transport): EvalCurvesRequest {
  let nextId = 1;
  const waiting = new Map<number, { resolve: (c: EvalCurves | null) => void; reject: (e: Error) => void }>();
  transport.subscribe((m) => {
    if (m.type === 'evalCurves') {
      waiting.get(m.id)?.resolve(m.curves);
      waiting.delete(m.id);
    } else if (m.type === 'error' && m.command === 'evalCurves') {
      for (const w of waiting.values()) w.reject(new Error(m.message));
      waiting.clear();
    }
  });
  return (runDir, epoch) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      try {
        transport.send({ type: 'evalCurves', id, runDir, epoch });
      } catch (e) {
        waiting.delete(id);
        reject(e as Error);
      }
    });
}
