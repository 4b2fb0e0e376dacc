// What the config editor says under an invalid field (issue 26 item 11): a zod issue of the run
// config schema in plain words and in the field's own terms (its range as the help line shows
// it), never the validator's own ("Invalid input: expected int, received number", or
// "<= 9007199254740991" under a field whose range is [1, 1e9]).
import type { z } from 'zod';

/**
 * A number as the editor shows it: from 1e6 up and below 1e-3, exponent form where it is the
 * shorter ("1e9", "2.5e-4", "1e-6", but "2147483647"); else plain ("4096", "0.05").
 */
export function numberText(v: number): string {
  const a = Math.abs(v);
  const plain = String(v);
  if (!Number.isFinite(v) || a === 0 || (a < 1e6 && a >= 1e-3)) return plain;
  const exp = v.toExponential().replace('e+', 'e');
  return exp.length < plain.length ? exp : plain;
}

/** `v` as the user typed it, clipped, for "(got ...)". */
function got(v: unknown): string {
  if (typeof v === 'number') return numberText(v);
  return JSON.stringify(v)?.slice(0, 40) ?? String(v);
}

const plural = (n: number, one: string, many: string) => `${numberText(n)} ${n === 1 ? one : many}`;

/**
 * The problem of a field in words. `typed` is the value the draft holds where the issue points;
 * `range` the field's valid range as its help line shows it ("[1, 1e9]", "(0, 1]"; for a list,
 * its entries' range), when it has one.
 */
export function problemText(issue: z.core.$ZodIssue, typed: unknown, range: string | undefined): string {
  const inRange = range ? ` in ${range}` : '';
  switch (issue.code) {
    case 'invalid_type': {
      if (typeof typed === 'string') {
        const what = issue.expected === 'array' ? 'a list of numbers (e.g. 256, 256)' : 'a number';
        return typed.trim() === '' ? `${what} is required` : `'${typed.trim().slice(0, 40)}' is not ${what}`;
      }
      if (typeof typed === 'number' && !Number.isFinite(typed)) return `must be a finite number${inRange}`;
      if (typeof typed === 'number' && issue.expected === 'int') return `must be a whole number${inRange} (got ${got(typed)})`;
      if (typed === undefined) return 'a value is required';
      return `must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`} (got ${got(typed)})`;
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = Number(small ? issue.minimum : issue.maximum);
      if (issue.origin === 'array') return small ? `needs at least ${plural(bound, 'entry', 'entries')}` : `takes at most ${plural(bound, 'entry', 'entries')}`;
      if (issue.origin === 'string') return small ? (bound === 1 ? 'must not be empty' : `needs at least ${plural(bound, 'character', 'characters')}`) : `takes at most ${plural(bound, 'character', 'characters')}`;
      if (range) return `must be${inRange} (got ${got(typed)})`;
      return `must be ${small ? (issue.inclusive ? 'at least' : 'more than') : issue.inclusive ? 'at most' : 'less than'} ${numberText(bound)} (got ${got(typed)})`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    default:
      return issue.message;
  }
}
