import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seriesCsv } from './csv.ts';
import { Series } from './series.ts';

test('the CSV holds every raw point, non-finite values spelled out', () => {
  const a = new Series();
  a.push(1, 0.5);
  a.push(2, NaN);
  const b = new Series();
  b.push(10, -Infinity);
  assert.equal(seriesCsv([{ name: 'losses/td_loss', series: a }, { name: 'a,b', series: b }]), 'series,step,value\nlosses/td_loss,1,0.5\nlosses/td_loss,2,NaN\n"a,b",10,-Infinity\n');
});
