// What a problem of a run config (or a sweep file) says, in one wording for `npm run train`, the
// trainer host and the dashboard's config editor: the field, its valid range with its unit as the
// editor's help line shows them ("[1, 65536] transitions"), the value given and what to change
// ("raise it to at least 1"), never the validator's own words ("Too small: expected number to be
// >=1", or "<= 9007199254740991" under a field whose range is [1, 1e9]). The ranges and units come
// from the schema's JSON Schema form, as the editor's field list reads them (renderer/config/fields.ts).
import { z } from 'zod';

/** The JSON Schema form of a field or section, as much of it as the editor and these messages read. */
export type JsonSchema = {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  unit?: string;
  /** An optional field's meaning when left out (common/config.ts FieldMeta). */
  absent?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonSchema>;
  /** The keys of `properties` a file must give (those with neither a default nor `.optional()`). */
  required?: string[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
};

/** One problem: the dotted path of the field that shows it ('' for the whole file) and what it says there. */
export interface ConfigProblem {
  path: string;
  message: string;
}

const jsonSchemas = new WeakMap<z.ZodType, JsonSchema>();

/** The JSON Schema form of `schema` as written in a file (defaults optional), made once per schema. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  let s = jsonSchemas.get(schema);
  if (!s) jsonSchemas.set(schema, (s = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema));
  return s;
}

/** The options of a tagged union (env's kinds, target_update's), or undefined when `s` is not one. */
export function variantsOf(s: JsonSchema): JsonSchema[] | undefined {
  const v = s.oneOf ?? s.anyOf;
  return v && v.every((o) => o.properties?.kind?.const !== undefined) ? v : undefined;
}

/**
 * The schema node at `path` (a list entry's index steps into the list's items). Inside a tagged
 * union it follows the option `input` has chosen there (its `kind`), else the first option that
 * has the next key.
 */
export function jsonSchemaAt(root: JsonSchema, path: readonly PropertyKey[], input?: unknown): JsonSchema | undefined {
  let s: JsonSchema | undefined = root;
  let v = input;
  for (const key of path) {
    if (!s) return undefined;
    const variants = variantsOf(s);
    if (variants) {
      const kind = v !== null && typeof v === 'object' ? (v as Record<string, unknown>).kind : undefined;
      s = variants.find((o) => o.properties!.kind!.const === kind) ?? variants.find((o) => o.properties?.[String(key)]);
    }
    s = typeof key === 'number' || /^\d+$/.test(String(key)) ? s?.items : s?.properties?.[String(key)];
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return s;
}

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

/** The bounds of a number field, or of a list field's entries; undefined when unbounded. */
interface Bounds {
  lo?: number;
  loOpen: boolean;
  hi?: number;
  hiOpen: boolean;
}

function boundsOf(s: JsonSchema | undefined): Bounds | undefined {
  if (s?.type === 'array') return boundsOf(s.items);
  const lo = s?.exclusiveMinimum ?? s?.minimum;
  const hi = s?.exclusiveMaximum ?? s?.maximum;
  if (lo === undefined && hi === undefined) return undefined;
  return { lo, loOpen: s?.exclusiveMinimum !== undefined, hi, hiOpen: s?.exclusiveMaximum !== undefined };
}

function boundsText(b: Bounds): string {
  return `${b.loOpen ? '(' : '['}${b.lo === undefined ? '-∞' : numberText(b.lo)}, ${b.hi === undefined ? '∞' : numberText(b.hi)}${b.hiOpen ? ')' : ']'}`;
}

/** The valid range of a number field as the editor shows it ("(0, 1]", "[1, 1e9]"), or of a list field's entries; undefined when unbounded. */
export function rangeText(s: JsonSchema | undefined): string | undefined {
  const b = boundsOf(s);
  return b && boundsText(b);
}

const inside = (b: Bounds, v: number) =>
  (b.lo === undefined || v > b.lo || (!b.loOpen && v === b.lo)) && (b.hi === undefined || v < b.hi || (!b.hiOpen && v === b.hi));

/** What to change a number outside `b` to: "raise it to at least 1", "lower it below 1". */
function fixText(b: Bounds, v: number): string | undefined {
  if (b.lo !== undefined && (v < b.lo || (b.loOpen && v === b.lo))) return b.loOpen ? `raise it above ${numberText(b.lo)}` : `raise it to at least ${numberText(b.lo)}`;
  if (b.hi !== undefined && (v > b.hi || (b.hiOpen && v === b.hi))) return b.hiOpen ? `lower it below ${numberText(b.hi)}` : `lower it to at most ${numberText(b.hi)}`;
  return undefined;
}

/** `v` as given, clipped, for "(got ...)". */
function gotText(v: unknown): string {
  if (typeof v === 'number') return numberText(v);
  return JSON.stringify(v)?.slice(0, 40) ?? String(v);
}

const plural = (n: number, one: string, many: string) => `${numberText(n)} ${n === 1 ? one : many}`;
/** A decimal number written as text (`"0.001"` in a JSON file). */
const DECIMAL_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;

/**
 * The problem of one field in words. `typed` is the value given where the issue points; `field`
 * the field's schema node (for a list entry, the list's), whose range and unit the text names.
 */
export function problemText(issue: z.core.$ZodIssue, typed: unknown, field: JsonSchema | undefined): string {
  const bounds = boundsOf(field);
  const unit = field?.unit ? ` ${field.unit}` : '';
  const range = bounds ? `${boundsText(bounds)}${unit}` : undefined;
  const inRange = range ? ` in ${range}` : '';
  const got = typed === undefined ? '' : ` (got ${gotText(typed)})`;
  switch (issue.code) {
    case 'invalid_type': {
      const list = issue.expected === 'array';
      const give = range ? `: give ${list ? 'entries' : 'one'} in ${range}` : '';
      if (typeof typed === 'string') {
        if (!list && DECIMAL_TEXT.test(typed)) return `must be a number, not the text ${gotText(typed)}: drop the quotes`;
        const what = list ? 'a list of numbers (e.g. 256, 256)' : 'a number';
        return typed.trim() === '' ? `${what} is required${give}` : `'${typed.trim().slice(0, 40)}' is not ${what}${give}`;
      }
      // JSON has no Infinity: a number as large as 1e999 parses to it.
      if (typeof typed === 'number' && !Number.isFinite(typed))
        return `must be a finite number${inRange} (got ${typed}${Number.isNaN(typed) ? '' : '; a number as large as 1e999 overflows to Infinity'})`;
      if (typeof typed === 'number' && issue.expected === 'int') {
        const near = [...new Set([Math.floor(typed), Math.ceil(typed)])].filter((n) => !bounds || inside(bounds, n));
        return `must be a whole number${inRange}${got}${near.length ? `: use ${near.map(numberText).join(' or ')}` : ''}`;
      }
      if (typed === undefined) return `a value is required${give}`;
      const want = issue.expected === 'boolean' ? 'true or false' : list ? 'a list' : issue.expected === 'object' ? 'a section ({ ... })' : `a ${issue.expected}`;
      return `must be ${want}${got}${give}`;
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = Number(small ? issue.minimum : issue.maximum);
      if (issue.origin === 'array') return small ? `needs at least ${plural(bound, 'entry', 'entries')}` : `takes at most ${plural(bound, 'entry', 'entries')}`;
      if (issue.origin === 'string') return small ? (bound === 1 ? 'must not be empty' : `needs at least ${plural(bound, 'character', 'characters')}`) : `takes at most ${plural(bound, 'character', 'characters')}`;
      // The field's own range, not the issue's bound (an integer's is also the safe-integer limit).
      if (bounds) {
        const fix = typeof typed === 'number' ? fixText(bounds, typed) : undefined;
        return `must be${inRange}${got}${fix ? `: ${fix}` : ''}`;
      }
      return `must be ${small ? (issue.inclusive ? 'at least' : 'more than') : issue.inclusive ? 'at most' : 'less than'} ${numberText(bound)}${unit}${got}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}${got}`;
    case 'invalid_union':
      // A tagged union's tag (env.kind, optim.target_update.kind) names no option.
      if ('options' in issue && issue.options?.length) return `must be one of ${issue.options.map(String).join(', ')}${got}`;
      return `${issue.message}${got}`;
    default:
      return `${issue.message}${got}`;
  }
}

/** What unwraps to a field's own schema: defaults and optionals. */
export function unwrapSchema(s: z.ZodType): z.ZodType {
  let cur = s as z.ZodType & { def: { type: string; innerType?: z.ZodType } };
  while ((cur.def.type === 'default' || cur.def.type === 'optional') && cur.def.innerType) cur = cur.def.innerType as typeof cur;
  return cur;
}

/** The fields of an object schema, or of every option of a union of objects (env's kinds, target_update's). */
export function schemaFields(s: z.ZodType): Map<string, z.ZodType> | undefined {
  const u = unwrapSchema(s) as z.ZodType & { def: { type: string; shape?: Record<string, z.ZodType>; options?: z.ZodType[] } };
  if (u.def.type === 'object') return new Map(Object.entries(u.def.shape!));
  if (u.def.type === 'union') {
    const out = new Map<string, z.ZodType>();
    for (const o of u.def.options!) for (const [k, v] of schemaFields(o) ?? []) if (!out.has(k)) out.set(k, v);
    return out.size ? out : undefined;
  }
  return undefined;
}

/**
 * The problems of keys a section of `schema` does not have: `batchsize: unknown field
 * (misspelled?); did you mean optim.batch_size?` where one name is close (at most a third of its
 * letters apart), else the names the section has (`rootName` names the top level).
 */
function unknownFields(schema: z.ZodType, path: readonly PropertyKey[], keys: readonly string[], rootName: string): ConfigProblem[] {
  let section: z.ZodType | undefined = schema;
  for (const key of path) section = section && schemaFields(section)?.get(String(key));
  const names = [...((section && schemaFields(section))?.keys() ?? [])];
  const prefix = path.length ? `${path.map(String).join('.')}.` : '';
  return keys.map((key) => ({ path: `${prefix}${key}`, message: unknownFieldMessage(key, names, prefix, rootName) }));
}

/**
 * What an unknown key `key` of a section (whose keys are `names`, its dotted path `prefix` with
 * a trailing dot, '' at the top, which `rootName` names) says: the closest name when one is near
 * (at most a third of its letters apart), else the names the section has.
 */
export function unknownFieldMessage(key: string, names: readonly string[], prefix: string, rootName: string): string {
  const message = 'unknown field (misspelled?)';
  const near = closestName(key, names);
  if (near !== undefined) return `${message}; did you mean ${prefix}${near}?`;
  return names.length ? `${message}: ${prefix ? prefix.slice(0, -1) : rootName} has ${names.join(', ')}` : message;
}

/**
 * The name of `names` closest to a misspelled `key` (fewest letters apart; the first of a tie),
 * when it is near enough to suggest: at most a third of the key's letters apart (2 for a short
 * key). Undefined when none is. The "did you mean ...?" of unknown config fields and presets.
 */
export function closestName(key: string, names: readonly string[]): string | undefined {
  const near = names.map((n) => ({ n, d: editDistance(key, n) })).sort((a, b) => a.d - b.d)[0];
  return near && near.d <= Math.max(2, Math.floor(key.length / 3)) ? near.n : undefined;
}

/** Levenshtein distance: the fewest single-letter insertions, deletions and substitutions from a to b. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The value of `input` at `path` (keys and list indices), or undefined where there is none. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), input);
}

/**
 * The problems of `input` that `schema` found (its issues), in the words above: the CLI prints
 * each as `path: message`, the config editor shows the message under the field at `path`. A list
 * entry's problem belongs to its list's field and names the entry ("network.hidden", "entry 2:
 * must be in [1, 4096] units (got 0): raise it to at least 1").
 */
export function configProblems(schema: z.ZodType, input: unknown, issues: readonly z.core.$ZodIssue[], rootName = 'the config'): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      out.push(...unknownFields(schema, issue.path, issue.keys, rootName));
      continue;
    }
    const segs = issue.path.map(String);
    let n = segs.length;
    while (n > 0 && /^\d+$/.test(segs[n - 1]!)) n--;
    const field = n > 0 ? jsonSchemaAt(jsonSchemaOf(schema), issue.path.slice(0, n), input) : undefined;
    const text = problemText(issue, valueAt(input, issue.path), field);
    const problem = { path: segs.slice(0, n).join('.'), message: n < segs.length ? `entry ${Number(segs[n]) + 1}: ${text}` : text };
    // zod may report one value twice (an integer above its maximum is also above the safe-integer limit): once is enough.
    if (!out.some((p) => p.path === problem.path && p.message === problem.message)) out.push(problem);
  }
  return out;
}

/** The problems as the CLI prints them, one line each: `optim.lr: must be in (0, 1] 1/step (got -1): raise it above 0`. */
export function problemLines(schema: z.ZodType, input: unknown, issues: readonly z.core.$ZodIssue[], rootName = 'the config'): string[] {
  return configProblems(schema, input, issues, rootName).map((p) => `${p.path || '(root)'}: ${p.message}`);
}
