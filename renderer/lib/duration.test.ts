import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationText } from './duration.ts';

test('a duration is rounded as a whole before it is split, so no part reads 60 ("3 min 60 s", "1 h 60 min")', () => {
  const cases: [number, string][] = [
    [0, '0 s'],
    [42.4, '42 s'],
    [59.4, '59 s'],
    [59.5, '1 min 0 s'],
    [119.4, '1 min 59 s'],
    [119.6, '2 min 0 s'],
    [185, '3 min 5 s'],
    [239.7, '4 min 0 s'],
    [3599.4, '59 min 59 s'],
    [3599.5, '1 h 0 min'],
    [3600, '1 h 0 min'],
    [4000, '1 h 7 min'],
    [7169, '1 h 59 min'],
    [7170, '2 h 0 min'],
    [7199.9, '2 h 0 min'],
    [90061, '25 h 1 min'],
  ];
  assert.deepEqual(cases.map(([s]) => durationText(s)), cases.map(([, text]) => text));
});

test('a missing or meaningless duration reads as a dash', () => {
  assert.deepEqual([durationText(undefined), durationText(Number.NaN), durationText(Infinity), durationText(-1)], ['–', '–', '–', '–']);
});
