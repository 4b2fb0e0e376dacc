import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contrast, deltaE, hsl, legibleOn, luminance } from './color.ts';

test('luminance and contrast follow WCAG 2.1 (black on white is 21:1, a colour on itself 1:1)', () => {
  assert.equal(luminance('#000000'), 0);
  assert.equal(luminance('#ffffff'), 1);
  assert.equal(contrast('#000000', '#ffffff'), 21);
  assert.equal(contrast('#777777', '#777777'), 1);
  // #767676 on white is the classic 4.54:1 grey.
  assert.ok(Math.abs(contrast('#767676', '#ffffff') - 4.54) < 0.01);
});

test('ΔE is 0 for one colour, 100 from black to white, and symmetric', () => {
  assert.equal(deltaE('#3366cc', '#3366cc'), 0);
  assert.ok(Math.abs(deltaE('#000000', '#ffffff') - 100) < 0.01);
  assert.equal(deltaE('#ff0000', '#00ff00'), deltaE('#00ff00', '#ff0000'));
});

test('hsl gives the primary colours at their hues', () => {
  assert.deepEqual([hsl(0, 1, 0.5), hsl(120, 1, 0.5), hsl(240, 1, 0.5), hsl(0, 0, 1)], ['#ff0000', '#00ff00', '#0000ff', '#ffffff']);
});

test('legibleOn darkens a pale colour on a light background and lightens a dark one on a dark background until 3:1', () => {
  const onWhite = legibleOn('#fdd663', '#ffffff');
  assert.ok(contrast('#fdd663', '#ffffff') < 3);
  assert.ok(contrast(onWhite, '#ffffff') >= 3, `${onWhite}`);
  const onDark = legibleOn('#3a2a80', '#12151c');
  assert.ok(contrast(onDark, '#12151c') >= 3, `${onDark}`);
  assert.equal(legibleOn('#1a73e8', '#ffffff'), '#1a73e8', 'a colour that stands out already is kept');
  assert.throws(() => legibleOn('red', '#ffffff'), /expected a colour as #rrggbb, got "red"/);
});
