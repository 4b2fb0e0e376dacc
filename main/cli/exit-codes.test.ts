import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../../common/config.ts';
import { SweepFileError } from '../../common/sweep.ts';
import { OhlcvError } from '../trainer/data/ohlcv.ts';
import { InputError } from '../trainer/input-error.ts';
import { parseArgv } from './cli-args.ts';
import { exitCodeFor } from './exit-codes.ts';

test('an error in what the user gave exits 2 (config, sweep file, a file or name that cannot be used, bad CSV data); any other error exits 1', () => {
  assert.deepEqual([new ConfigError(['x: bad']), new SweepFileError(['y: bad']), new InputError('config file not found: c.json'), new OhlcvError('OHLCV file not found: d.csv')].map(exitCodeFor), [2, 2, 2, 2]);
  assert.deepEqual([new Error("backend 'cuda' was asked for, but no CUDA device"), new RangeError('x'), 'a string'].map(exitCodeFor), [1, 1, 1]);
});

test('a bad command line exits 2 (commander says 1), help exits 0', () => {
  const program = () =>
    new Command()
      .option('--epochs <n>', 'epochs', (v) => {
        if (!(Number(v) >= 1)) throw new InvalidArgumentError(`--epochs must be a positive integer, got '${v}'`);
        return Number(v);
      })
      .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  assert.equal(parseArgv(program(), ['--epochs', '0']), 2, 'a bad flag value');
  assert.equal(parseArgv(program(), ['--epoch', '3']), 2, 'an unknown flag');
  assert.equal(parseArgv(program(), ['--help']), 0);
  assert.equal(parseArgv(program(), ['--epochs', '3']), undefined, 'parsed: go on');
});
