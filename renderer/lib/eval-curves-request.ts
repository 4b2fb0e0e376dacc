// Asks the trainer host for the per-bar curves of one trading evaluation (`evalCurves` ->
// `evalCurves`, main/trainer/eval-curves.ts): they live in the run folder, one file per epoch.
import type { EvalCurves } from '../../common/trading-curves.ts';
import type { Transport } from '../transport/transport.ts';
import { createHostRequester } from './host-request.ts';

/** The curves of epoch `epoch`'s evaluation in run `runDir`, or null when it kept none. */
export type EvalCurvesRequest = (runDir: string, epoch: number) => Promise<EvalCurves | null>;

/**
 * An EvalCurvesRequest over `transport`: answered by the `evalCurves` message with its id; an
 * `error` for `evalCurves` rejects the requests still waiting, with the host's reason.
 */
export function createEvalCurvesRequester(transport: Transport): EvalCurvesRequest {
  return createHostRequester(
    transport,
    'evalCurves',
    'evalCurves',
    (id, runDir: string, epoch: number) => ({ type: 'evalCurves', id, runDir, epoch }),
    (m) => m.curves,
  );
}
