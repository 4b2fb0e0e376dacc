// Runs every *.test.ts under the source folders with Node's test runner (Node 20 has no glob in --test).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const ROOTS = ['common', 'main', 'native/test', 'renderer', 'bench', 'e2e', 'scripts'];
const SKIP = new Set(['node_modules', 'out', 'build']);

function collect(dir, found) {
  let entries;
  try { entries = readdirSync(dir); } catch { return; }
  for (const name of entries) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, found);
    else if (name.endsWith('.test.ts') || name.endsWith('.test.tsx')) found.push(path);
  }
}

const filter = process.argv.slice(2);
const files = [];
for (const root of ROOTS) collect(root, files);
const chosen = filter.length ? files.filter((f) => filter.some((p) => f.includes(p))) : files;
if (chosen.length === 0) { console.error(`no test files matched ${filter.join(' ')}`); process.exit(1); }
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...chosen.sort()], { stdio: 'inherit' });
process.exit(result.status ?? 1);
