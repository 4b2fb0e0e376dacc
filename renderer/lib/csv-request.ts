// Asks the trainer host for a run's raw records as CSV (`exportCsv` -> `csv`, main/trainer/
// csv-export.ts): the charts hold per-frame summaries, the export every logged record.
import type { Transport } from '../transport/transport.ts';

/** CSV text of `series` in run `runDir`, and its row count. */
export type CsvRequest = (runDir: string, series: string[]) => Promise<{ text: string; rows: number }>;

/**
 * A CsvRequest over `transport`. A request is answered by the `csv` message with its id; an
 * `error` for `exportCsv` rejects the requests still waiting, with the host's reason.
 */
export function createCsvRequester(transport: Transport): CsvRequest {
  let nextId = 1;
  const waiting = new Map<number, { resolve: (r: { text: string; rows: number }) => void; reject: (e: Error) => void }>();
  transport.subscribe((m) => {
    if (m.type === 'csv') {
      waiting.get(m.id)?.resolve({ text: m.text, rows: m.rows });
      waiting.delete(m.id);
    } else if (m.type === 'error' && m.command === 'exportCsv') {
      for (const w of waiting.values()) w.reject(new Error(m.message));
      waiting.clear();
    }
  });
  return (runDir, series) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      try {
        transport.send({ type: 'exportCsv', id, runDir, series });
      } catch (e) {
        waiting.delete(id);
        reject(e as Error);
      }
    });
}
