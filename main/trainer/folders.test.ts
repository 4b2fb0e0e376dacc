import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeFolder } from './folders.ts';

const onProcfs = () => existsSync('/proc/self/status');

test('makeFolder creates the missing levels and leaves an existing folder alone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folders-'));
  try {
    makeFolder(join(dir, 'a', 'b', 'c'));
    assert.ok(statSync(join(dir, 'a', 'b', 'c')).isDirectory());
    makeFolder(join(dir, 'a', 'b', 'c'));
    makeFolder(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file where a folder should be is named, and nothing is created', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folders-'));
  try {
    writeFileSync(join(dir, 'f'), 'x');
    assert.throws(() => makeFolder(join(dir, 'f', 'runs', 'x')), { message: `cannot create folder ${join(dir, 'f', 'runs', 'x')}: ${join(dir, 'f')} is not a folder; pass a folder you can write to` });
    assert.throws(() => makeFolder(join(dir, 'f')), /is not a folder/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a folder under /proc is refused at once with the ancestor that refuses it (Node\'s recursive mkdir spins there forever)', { skip: !onProcfs() && 'no procfs' }, () => {
  assert.throws(() => makeFolder('/proc/nope/runs'), /^Error: cannot create folder \/proc\/nope\/runs: \/proc does not accept a new folder there \(.*ENOENT.*\); pass a folder you can write to$/);
  assert.equal(existsSync('/proc/nope'), false);
});

test('an ancestor this user cannot write to is refused before any mkdir', { skip: process.getuid?.() === 0 && 'root writes anywhere' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'folders-'));
  try {
    chmodSync(dir, 0o555);
    assert.throws(() => makeFolder(join(dir, 'runs', 'x')), new RegExp(`: ${dir} is not writable by this user \\(permission denied`));
  } finally {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  }
});
