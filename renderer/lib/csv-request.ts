// Asks the trainer host for a run's raw records as CSV (`exportCsv` -> `csv`, main/trainer/
// csv-export.ts): the charts hold per-frame summaries, the export every logged record.
import type { Transport } from '../transport/transport.ts';
import { createHostRequester } from './host-request.ts';

/** CSV text of `series` in run `runDir`, and its row count. */
export type CsvRequest = (runDir: string, series: string[]) => Promise<{ text: string; rows: number }>;

/**
 * A CsvRequest over `transport`. A request is answered by the `csv` message with its id; an
 * `error` for `exportCsv` rejects the requests still waiting, with the host's reason.
 */
export function createCsvRequester(transport: Transport): CsvRequest {
  return createHostRequester(
    transport,
    'csv',
    'exportCsv',
    (id, runDir: string, series: string[]) => ({ type: 'exportCsv', id, runDir, series }),
    (m) => ({ text: m.text, rows: m.rows }),
  );
}
