// The browser transport checks what it sends: a message the server would refuse is refused here,
// with the reason in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWebSocketTransport, type WebSocketLike } from './websocket.ts';

/** A socket that is open at once and keeps what is sent. */
function openSocket(): WebSocketLike & { sent: string[] } {
  const ws = { readyState: 1, onopen: null, onclose: null, onmessage: null, onerror: null, sent: [] as string[], send: (d: string) => ws.sent.push(d), close() {} };
  return ws;
}

test('a preset name or config the server would refuse is refused before sending, with what to fix (not a JSON dump of the schema error)', async () => {
  const ws = openSocket();
  const transport = createWebSocketTransport('ws://127.0.0.1:1/ws?token=t', () => ws, 20);
  const sentBefore = ws.sent.length;
  await assert.rejects(transport.savePreset('../x', { env: { kind: 'cartpole' } }), (e: Error) => {
    assert.match(e.message, /^request\.name: use letters, digits, "\.", "_" and "-" only, and do not start with "\."$/);
    return true;
  });
  await assert.rejects(transport.savePreset('a'.repeat(65), { env: { kind: 'cartpole' } }), /^Error: request\.name: Too big: expected string to have <=64 characters$/);
  // A config the server would refuse reads as the config editor and `npm run train` say it.
  await assert.rejects(transport.savePreset('ok', { env: { kind: 'cartpole' }, schedule: { steps_per_epoch: 1.5 } }), {
    message: 'request.config.schedule.steps_per_epoch: must be a whole number in [1, 1e9] steps (got 1.5): use 1 or 2',
  });
  assert.equal(ws.sent.length, sentBefore, 'nothing was sent');
  transport.close();
});

test('on connecting, hello goes out before what the open listeners send (a ?run= link\'s openRun), so the host\'s state comes first', () => {
  const ws = openSocket();
  const transport = createWebSocketTransport('ws://127.0.0.1:1/ws?token=t', () => ws, 20);
  transport.onConnection((st) => st === 'open' && transport.send({ type: 'openRun', runDir: 'run-1' }));
  ws.onopen!({});
  const types = ws.sent.map((d) => (JSON.parse(d) as { command?: { type: string } }).command?.type);
  assert.deepEqual(types, ['hello', 'listRuns', 'openRun']);
  transport.close();
});
