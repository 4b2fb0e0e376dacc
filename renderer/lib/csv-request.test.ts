import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HostCommandInput, HostMessage } from '../../common/protocol.ts';
import type { Transport } from '../transport/transport.ts';
import { createCsvRequester } from './csv-request.ts';

function fakeTransport() {
  const sent: HostCommandInput[] = [];
  let listener: ((m: HostMessage) => void) | undefined;
  const t: Transport = {
    kind: 'browser',
    send: (c) => void sent.push(c),
    subscribe: (l) => ((listener = l), () => (listener = undefined)),
    onConnection: () => () => undefined,
    listPresets: async () => [],
    savePreset: async () => [],
    restartHost: () => undefined,
  };
  return { t, sent, deliver: (m: HostMessage) => listener?.(m) };
}

test('a CSV request is answered by the csv message with its id; an exportCsv error rejects with the reason', async () => {
  const { t, sent, deliver } = fakeTransport();
  const request = createCsvRequester(t);
  const a = request('/runs/a', ['losses/td_loss']);
  const b = request('/runs/a', ['q/mean']);
  assert.deepEqual(sent, [
    { type: 'exportCsv', id: 1, runDir: '/runs/a', series: ['losses/td_loss'] },
    { type: 'exportCsv', id: 2, runDir: '/runs/a', series: ['q/mean'] },
  ]);
  deliver({ type: 'csv', id: 2, runDir: '/runs/a', rows: 1, text: 'series,step,value\nq/mean,1,2\n' });
  assert.deepEqual(await b, { text: 'series,step,value\nq/mean,1,2\n', rows: 1 });
  deliver({ type: 'error', command: 'exportCsv', message: 'the export would hold more than 2,000,000 rows' });
  await assert.rejects(a, /more than 2,000,000 rows/);
});
