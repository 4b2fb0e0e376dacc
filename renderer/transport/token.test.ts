import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_TOKEN, pageToken, TOKEN_KEY } from './token.ts';
import { createWebSocketTransport } from './websocket.ts';

/** A Storage that keeps what is set (the page origin's localStorage). */
function memoryStorage() {
  const items = new Map<string, string>();
  return { items, getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
}

test('the URL token is kept in the origin storage and taken out of the address; a tokenless load uses the kept one (issue 26 item 5)', () => {
  const storage = memoryStorage();
  const shown: string[] = [];
  assert.equal(pageToken('http://127.0.0.1:8787/?token=abc&run=r1', storage, (u) => shown.push(u)), 'abc');
  assert.deepEqual([...storage.items], [[TOKEN_KEY, 'abc']]);
  assert.deepEqual(shown, ['http://127.0.0.1:8787/?run=r1'], 'the address keeps ?run= and loses the token');
  assert.equal(pageToken('http://127.0.0.1:8787/?run=r2', storage, (u) => shown.push(u)), 'abc', 'a bookmark without it');
  assert.equal(shown.length, 1, 'nothing to take out');
  assert.equal(pageToken('http://127.0.0.1:8787/', memoryStorage(), () => undefined), undefined, 'a fresh browser profile has none');
});

test('without a token the transport never connects and says what to open', () => {
  let opened = 0;
  const transport = createWebSocketTransport(undefined, () => {
    opened++;
    throw new Error('no socket expected');
  });
  const states: [string, string | undefined][] = [];
  transport.onConnection((s, d) => states.push([s, d]));
  assert.deepEqual(states, [['closed', NO_TOKEN]]);
  assert.equal(opened, 0);
  assert.throws(() => transport.send({ type: 'listRuns' }), /not connected/);
  transport.close();
});
