import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DRAFT_KEY, loadDraft, saveDraft } from './draft-storage.ts';
import { setAt, withDefaults } from './fields.ts';

/** A Storage stand-in over a Map. */
const memoryStorage = () => {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
};

test('the edited draft, its preset and the text being typed come back after a reload (issue 26 item 11)', () => {
  const storage = memoryStorage();
  assert.equal(loadDraft(storage), undefined, 'nothing saved yet: the editor starts from the defaults');
  const base = withDefaults({ env: { kind: 'cartpole' } }) as unknown as Record<string, unknown>;
  const editor = { draft: setAt(base, 'optim.lr', 0.001), base, baseName: 'cartpole (builtin)', texts: { 'optim.lr': '0.001' } };
  saveDraft(storage, editor);
  assert.deepEqual(loadDraft(storage), editor);
});

test('a stored value that is not an editor state is ignored; a storage that refuses writes leaves the page working', () => {
  for (const bad of ['{', '[]', '{"draft":{},"base":{},"baseName":3,"texts":{}}', '{"draft":{},"base":{},"baseName":"x","texts":{"a":1}}']) {
    const storage = memoryStorage();
    storage.setItem(DRAFT_KEY, bad);
    assert.equal(loadDraft(storage), undefined, bad);
  }
  assert.doesNotThrow(() => saveDraft({ setItem: () => { throw new DOMException('full', 'QuotaExceededError'); } }, { draft: {}, base: {}, baseName: 'x', texts: {} }));
});
