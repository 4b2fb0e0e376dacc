import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOOD_REASON, MESSAGE_BURST, MESSAGES_PER_SECOND, MessageBudget } from './client-limits.ts';

test('a connection may send MESSAGE_BURST messages at once, then MESSAGES_PER_SECOND; the budget refills up to the burst', () => {
  let now = 0;
  const budget = new MessageBudget(MESSAGE_BURST, MESSAGES_PER_SECOND, () => now);
  for (let i = 0; i < MESSAGE_BURST; i++) assert.equal(budget.take(), true, `message ${i + 1}`);
  assert.equal(budget.take(), false, 'one past the burst');
  now += 1000 / MESSAGES_PER_SECOND;
  assert.equal(budget.take(), true, 'one more after 1 / rate seconds');
  assert.equal(budget.take(), false);
  now += 3_600_000;
  let n = 0;
  while (budget.take()) n++;
  assert.equal(n, MESSAGE_BURST, 'an idle hour refills the burst, no more');
  assert.ok(Buffer.byteLength(FLOOD_REASON) <= 123, 'a WebSocket close reason fits 123 bytes');
});
