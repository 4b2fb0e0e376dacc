// The config editor's field list, derived from the zod RunConfig schema (through its JSON
// Schema form, which carries each field's default, description, unit and range), so a field
// added to common/config.ts shows up in the editor with no change here.
import { RunConfigSchema, type RunConfig, type RunConfigInput } from '../../common/config.ts';
import { configProblems, jsonSchemaAt, jsonSchemaOf, rangeText, variantsOf, type JsonSchema } from '../../common/config-problems.ts';

/** One editable value. */
export interface FieldSpec {
  kind: 'number' | 'integer' | 'boolean' | 'enum' | 'string' | 'integer-list';
  /** Dotted path in the config, e.g. "optim.lr". */
  path: string;
  label: string;
  description?: string;
  unit?: string;
  default?: unknown;
  options?: string[];
  /** The valid range as shown, e.g. "(0, 1]" or "[1, 4096]"; undefined when unbounded. */
  range?: string;
  /** A number field that also takes null (none: schedule.target_return off), which an empty field means. */
  nullable?: boolean;
  /**
   * A field the config may leave out, having no default (optim.lr_end): an empty field leaves it
   * out of the draft, so of the config sent on Start and of a saved preset.
   */
  optional?: boolean;
  /** What an optional field left out means, from the schema's `absent` ("lr throughout"). */
  absent?: string;
}

/** A choice between variants of a tagged union (env.kind, optim.target_update.kind). */
export interface VariantSpec {
  kind: 'variant';
  path: string;
  label: string;
  options: string[];
}

export type EditorRow = FieldSpec | VariantSpec;

export const CONFIG_JSON_SCHEMA = jsonSchemaOf(RunConfigSchema);

/** Reads the value at a dotted path. */
export function getAt(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/**
 * Returns a copy of `obj` with the value at `path` replaced (objects on the way are copied); a
 * value of undefined removes the key (an optional field left empty is left out of the config).
 */
export function setAt<T>(obj: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split('.');
  const o = { ...(obj as Record<string, unknown>) };
  if (rest.length) o[head!] = setAt((o[head!] ?? {}) as object, rest.join('.'), value);
  else if (value === undefined) delete o[head!];
  else o[head!] = value;
  return o as T;
}

/** The defaults of one union variant, e.g. { kind: 'trading', data: '', num_envs: 8, ... }. */
export function variantDefaults(path: string, kind: string): Record<string, unknown> {
  const node = schemaAt(path);
  const variant = node && variantsOf(node)?.find((v) => v.properties?.kind?.const === kind);
  const out: Record<string, unknown> = { kind };
  for (const [k, p] of Object.entries(variant?.properties ?? {})) {
    if (k === 'kind') continue;
    out[k] = p.default ?? (p.type === 'string' ? '' : undefined);
  }
  return out;
}

/**
 * The number (or integer) schema of a field that takes a number or null: JSON Schema's
 * `type: ['number', 'null']`, or `anyOf` a number schema and `{ type: 'null' }` when the number is
 * bounded; undefined for any other field.
 */
function nullableNumberOf(prop: JsonSchema): JsonSchema | undefined {
  const types: unknown = prop.type;
  if (Array.isArray(types)) {
    const rest = types.filter((t) => t !== 'null');
    return types.includes('null') && rest.length === 1 && (rest[0] === 'number' || rest[0] === 'integer') ? { ...prop, type: rest[0] as string } : undefined;
  }
  const options = prop.anyOf;
  const other = options?.length === 2 && options.some((o) => o.type === 'null') ? options.find((o) => o.type !== 'null') : undefined;
  return other && (other.type === 'number' || other.type === 'integer') ? { ...prop, ...other, anyOf: undefined } : undefined;
}

function schemaAt(path: string): JsonSchema | undefined {
  return jsonSchemaAt(CONFIG_JSON_SCHEMA, path.split('.'));
}

/**
 * The editor rows for `draft`: every field in schema order, with the fields of the variant the
 * draft has chosen for each tagged union. A field that is neither required nor defaulted in the
 * schema (`.optional()`) is marked optional.
 */
export function editorRows(draft: unknown): EditorRow[] {
  const rows: EditorRow[] = [];
  const walk = (s: JsonSchema, prefix: string) => {
    for (const [key, prop] of Object.entries(s.properties ?? {})) {
      const path = prefix ? `${prefix}.${key}` : key;
      const variants = variantsOf(prop);
      const nullable = nullableNumberOf(prop);
      if (variants) {
        const options = variants.map((v) => String(v.properties!.kind!.const));
        rows.push({ kind: 'variant', path: `${path}.kind`, label: `${path}.kind`, options });
        const chosen = variants.find((v) => v.properties!.kind!.const === getAt(draft, `${path}.kind`)) ?? variants[0]!;
        walk({ properties: Object.fromEntries(Object.entries(chosen.properties!).filter(([k]) => k !== 'kind')), required: chosen.required }, path);
      } else if (prop.type === 'object') {
        walk(prop, path);
      } else if (nullable) {
        rows.push({ path, label: path, description: prop.description, unit: prop.unit, default: prop.default, range: rangeText(nullable), kind: nullable.type === 'integer' ? 'integer' : 'number', nullable: true });
      } else {
        const optional = !s.required?.includes(key) && prop.default === undefined;
        const base = { path, label: path, description: prop.description, unit: prop.unit, default: prop.default, range: rangeText(prop), ...(optional && { optional, absent: prop.absent }) };
        if (prop.type === 'array') rows.push({ ...base, kind: 'integer-list' });
        else if (prop.enum) rows.push({ ...base, kind: 'enum', options: prop.enum.map(String) });
        else if (prop.type === 'boolean') rows.push({ ...base, kind: 'boolean' });
        else if (prop.type === 'integer') rows.push({ ...base, kind: 'integer' });
        else if (prop.type === 'number') rows.push({ ...base, kind: 'number' });
        else rows.push({ ...base, kind: 'string' });
      }
    }
  };
  walk(CONFIG_JSON_SCHEMA, '');
  return rows;
}

/** A decimal number as people type it (`0.001`, `-3`, `1e-4`, `.5`); not hex, `Infinity` or `1_000`. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Turns the text typed into a field into the value stored in the draft. Text that is not a
 * decimal number (a list: numbers separated by commas or spaces, none empty) stays a string, so
 * validation reports it at the field (validate: "'0x10' is not a number"). An empty nullable
 * field is null (none); an empty optional field is undefined, which setAt turns into no key.
 */
export function parseFieldText(field: FieldSpec, text: string): unknown {
  const t = text.trim();
  if (field.nullable && t === '') return null;
  if (field.optional && t === '') return undefined;
  if (field.kind === 'number' || field.kind === 'integer') return DECIMAL.test(t) ? Number(t) : text;
  if (field.kind === 'integer-list') {
    const parts = t === '' ? [] : t.split(/\s*,\s*|\s+/);
    return parts.every((p) => DECIMAL.test(p)) ? parts.map(Number) : text;
  }
  return text;
}

/** A value as the editor's help line and diff show it: a list in brackets, null as none, a missing value as '–'. */
export function valueText(v: unknown): string {
  return v === undefined ? '–' : v === null ? 'none' : Array.isArray(v) ? `[${v.join(', ')}]` : typeof v === 'string' ? v || '""' : String(v);
}

/**
 * A field's help line: its default with its unit, and its range ("default 0.2 fraction of
 * grad_clip · range [0, 1)"); a field whose default is none, or an optional one, says to leave it
 * empty for that, and what it means ("default none (leave empty) · in return units", "default lr
 * throughout (leave empty) · in 1/step · range (0, 1]").
 */
export function fieldHelpText(f: FieldSpec): string {
  const range = f.range ? ` · range ${f.range}` : '';
  const empty = f.nullable && f.default === null ? 'none' : f.optional ? (f.absent ?? 'absent') : undefined;
  if (empty) return `default ${empty} (leave empty)${f.unit ? ` · in ${f.unit}` : ''}${range}`;
  return `default ${valueText(f.default)}${f.unit ? ` ${f.unit}` : ''}${range}${f.nullable ? ' · empty: none' : ''}`;
}

/** The text a field shows for a draft value (empty for null: none, and for a field left out). */
export function fieldText(value: unknown): string {
  if (Array.isArray(value)) return value.join(', ');
  return value === undefined || value === null ? '' : String(value);
}

/**
 * Validation problems of a draft, by the dotted path of the field that shows them ('' for the
 * whole config), the first of each field, in the words the CLI prints too (common/config-problems.ts:
 * "must be a whole number in [1, 1e9] steps (got 1.5): use 1 or 2", "'abc' is not a number"). A
 * list entry's problem goes to its list's field, naming the entry ("entry 1: ...").
 */
export function validate(draft: unknown): Map<string, string> {
  const r = RunConfigSchema.safeParse(draft);
  const out = new Map<string, string>();
  if (r.success) return out;
  for (const p of configProblems(RunConfigSchema, draft, r.error.issues)) if (!out.has(p.path)) out.set(p.path, p.message);
  return out;
}

/** A config with every default filled in, as the editor's draft starts. */
export function withDefaults(input: RunConfigInput): RunConfig {
  return RunConfigSchema.parse(input);
}

/** One changed value of a draft against its preset. */
export interface DiffEntry {
  path: string;
  from: unknown;
  to: unknown;
}

function flatten(v: unknown, prefix: string, out: Map<string, unknown>): void {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.set(prefix, v);
  }
}

/** The leaves of a config by dotted path ("optim.lr" -> 0.001), in the config's key order; a list is one leaf. */
export function configLeaves(config: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  flatten(config, '', out);
  return out;
}

/** The leaves where `draft` differs from `base` (both with defaults filled in), sorted by path. */
export function configDiff(base: unknown, draft: unknown): DiffEntry[] {
  const a = configLeaves(base);
  const b = configLeaves(draft);
  const out: DiffEntry[] = [];
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    const from = a.get(path);
    const to = b.get(path);
    if (JSON.stringify(from) !== JSON.stringify(to)) out.push({ path, from, to });
  }
  return out.sort((x, y) => x.path.localeCompare(y.path));
}
