// Schema errors of messages in words: a problem inside a run config reads as `npm run train` and
// the config editor say it (config-problems.ts), whichever message carried the config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import { ConfigError, parseRunConfig } from './config.ts';
import { BridgeClientMessageSchema, HostCommandSchema, HostMessageSchema, issuesText, PresetRequestSchema } from './protocol.ts';

/** What the CLI prints for `config`, one line per field. */
function cliLines(config: unknown): string[] {
  try {
    parseRunConfig(config);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

/** issuesText of `message` refused by `schema`. */
function refusal(schema: z.ZodType, message: unknown, max?: number): string {
  const r = schema.safeParse(message);
  assert.ok(!r.success, JSON.stringify(message));
  return issuesText(r.error, message, max);
}

test('a config problem reads as the CLI says it under its path in the message, for a start command, a bridged one and a preset save', () => {
  const bad = [
    { env: { kind: 'cartpole' }, optim: { lr: -1 } },
    { env: { kind: 'cartpole' }, optim: { learning_rate: 0.001 } },
    { env: { kind: 'cartpole', num_envs: 1.5 }, network: { hidden: [64, 0] }, schedule: { steps_per_epoch: 1e20 }, heads: { iqn: { kappa: 0 } } },
    { env: { kind: 'trading', data: 'x.csv', lags: 17 }, optim: { gamma: Infinity, huber_delta: '1' }, replay: { sampler: 'ranked' } },
    { env: { kind: 'pong' } },
    { env: { kind: 'cartpole' }, optim: { lr_end: '' } },
  ];
  for (const config of bad) {
    const lines = cliLines(config).slice(0, 3);
    assert.ok(lines.length > 0, JSON.stringify(config));
    const under = (prefix: string) => lines.map((l) => `${prefix}${l}`).join('; ');
    assert.equal(refusal(HostCommandSchema, { type: 'start', config }), under('config.'));
    assert.equal(refusal(BridgeClientMessageSchema, { channel: 'trainer', command: { type: 'start', config } }), under('command.config.'));
    assert.equal(refusal(BridgeClientMessageSchema, { channel: 'presets', id: 1, request: { op: 'save', name: 'p', config } }), under('request.config.'));
    assert.equal(refusal(PresetRequestSchema, { op: 'save', name: 'p', config }), under('config.'));
  }
  assert.equal(refusal(HostCommandSchema, { type: 'start', config: { env: { kind: 'cartpole' }, optim: { lr: -1 } } }), 'config.optim.lr: must be in (0, 1] 1/step (got -1): raise it above 0');
  assert.equal(refusal(HostCommandSchema, { type: 'start' }), 'config: a value is required');
});

test('problems outside a config keep the schema\'s words, in message order with the config\'s, at most `max` of them', () => {
  const message = { channel: 'presets', id: 1, request: { op: 'save', name: '.x', config: { env: { kind: 'cartpole' }, seed: 'abc', optim: { lr: 2 } } } };
  assert.equal(
    refusal(BridgeClientMessageSchema, message),
    'request.name: use letters, digits, ".", "_" and "-" only, and do not start with "."; request.config.seed: \'abc\' is not a number: give one in [0, 2147483647]; request.config.optim.lr: must be in (0, 1] 1/step (got 2): lower it to at most 1',
  );
  assert.equal(refusal(BridgeClientMessageSchema, message, 1), 'request.name: use letters, digits, ".", "_" and "-" only, and do not start with "."');
  // Only a message's own config is one: a frame series that happens to be named "config" is not.
  const frame = { type: 'frame', runDir: 'r', seq: 1, series: { config: { x0: 'a', x1: 1, n: 1, last: 1 } }, epochsEnded: 0, events: [], eventsOmitted: 0 };
  assert.match(refusal(HostMessageSchema, frame), /^series\.config\.x0: Invalid input: expected number, received string$/);
});
