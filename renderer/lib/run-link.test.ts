import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressForRun } from './run-link.ts';

test('a past run opened puts its name in the address; the live view takes it out; other parameters stay', () => {
  assert.equal(addressForRun('http://127.0.0.1:8000/', '20261202-1200-cartpole'), 'http://127.0.0.1:8000/?run=20261202-1200-cartpole');
  assert.equal(addressForRun('http://127.0.0.1:8000/?theme=dark&run=a', 'b'), 'http://127.0.0.1:8000/?theme=dark&run=b');
  assert.equal(addressForRun('http://127.0.0.1:8000/?theme=dark&run=a', undefined), 'http://127.0.0.1:8000/?theme=dark');
  assert.equal(addressForRun('http://127.0.0.1:8000/?run=a%20b', 'a b'), undefined, 'already right: nothing to replace');
  assert.equal(addressForRun('http://127.0.0.1:8000/', undefined), undefined);
  assert.equal(addressForRun('http://127.0.0.1:8000/#x', 'r&s'), 'http://127.0.0.1:8000/?run=r%26s#x', 'the name is encoded; the fragment stays');
});
