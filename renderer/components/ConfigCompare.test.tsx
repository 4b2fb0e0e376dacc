import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseRunConfig } from '../../common/config.ts';
import { ConfigCompare } from './ConfigCompare.tsx';

test("the config diff heads its columns with the runs' short names (the folder name on hover) and lets a field's path break only between its words", () => {
  const config = (lr: number, decay: number) => parseRunConfig({ env: { kind: 'cartpole' }, optim: { lr, lr_decay_steps: decay } });
  const html = renderToStaticMarkup(
    <ConfigCompare
      runs={[
        { name: '20261202-222258-e2e-cartpole', config: config(0.002, 0), role: 'live' },
        { name: '20261202-222256-e2e-cartpole', config: config(0.001, 100), role: 'overlay', color: '#ff5c8a' },
        { name: '20261202-222001-other', config: config(0.001, 0), role: 'overlay', color: '#00e5ff' },
      ]}
    />,
  );
  const heads = [...html.matchAll(/<th scope="col" title="([^"]*)"><span class="run-name"[^>]*>([^<]*)<\/span>/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(heads, [
    ['20261202-222258-e2e-cartpole', 'e2e-cartpole (22:22:58)'],
    ['20261202-222256-e2e-cartpole', 'e2e-cartpole (22:22:56)'],
    ['20261202-222001-other', 'other'],
  ]);
  assert.match(html, /<code>optim\.<wbr\/>lr_<wbr\/>decay_<wbr\/>steps<\/code>/);
  assert.match(html, /<code>optim\.<wbr\/>lr<\/code>/);
});

test('a target return of none beside one of 475 reads none, not null', () => {
  const config = (target_return: number | null) => parseRunConfig({ env: { kind: 'cartpole' }, schedule: { target_return } });
  const html = renderToStaticMarkup(
    <ConfigCompare
      runs={[
        { name: '20261204-100000-a', config: config(null), role: 'shown' },
        { name: '20261204-100001-b', config: config(475), role: 'overlay', color: '#ff5c8a' },
      ]}
    />,
  );
  const row = /target_<wbr\/>return<\/code>.*?<\/tr>/s.exec(html)?.[0] ?? '';
  assert.deepEqual([...row.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]), ['none', '475']);
});
