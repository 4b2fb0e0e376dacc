import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHORTCUTS, shortcutFor, takesText } from './shortcuts.ts';

const press = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({ key, ctrlKey: false, metaKey: false, altKey: false, ...mods });

test('Ctrl or ⌘ with Enter, "." and "," start, stop and focus the config, also from a text field', () => {
  for (const mod of [{ ctrlKey: true }, { metaKey: true }]) {
    assert.equal(shortcutFor(press('Enter', mod), true), 'start');
    assert.equal(shortcutFor(press('.', mod), false), 'stop');
    assert.equal(shortcutFor(press(',', mod), true), 'focusConfig');
  }
  assert.equal(shortcutFor(press('Enter'), false), undefined, 'Enter alone submits what has focus, nothing of ours');
  assert.equal(shortcutFor(press('Enter', { ctrlKey: true, altKey: true }), false), undefined);
});

test('"?" opens the shortcut list, except while typing in a text field', () => {
  assert.equal(shortcutFor(press('?'), false), 'shortcuts');
  assert.equal(shortcutFor(press('?'), true), undefined);
  assert.equal(shortcutFor(press('?', { ctrlKey: true }), false), undefined);
});

test('every action has exactly one entry in the shortcut table', () => {
  const actions = SHORTCUTS.map((s) => s.action);
  assert.deepEqual([...new Set(actions)].sort(), ['focusConfig', 'shortcuts', 'start', 'stop']);
  assert.equal(actions.length, 4);
});

test('text inputs, selects and text areas take text; checkboxes, ranges and buttons do not', () => {
  const el = (tagName: string, type = '') => ({ tagName, type }) as unknown as Element;
  assert.deepEqual(
    [el('INPUT', 'text'), el('INPUT', 'search'), el('INPUT', 'number'), el('TEXTAREA'), el('SELECT')].map(takesText),
    [true, true, true, true, true],
  );
  assert.deepEqual([el('INPUT', 'checkbox'), el('INPUT', 'range'), el('BUTTON'), null].map(takesText), [false, false, false, false]);
});
