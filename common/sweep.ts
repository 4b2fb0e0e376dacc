// Sweeps (issue 25 item 3): the sweep file that `npm run sweep -- --config FILE` reads, checked
// field by field against the run config's own schema (common/config.ts), so a parameter is any
// field of a run config named by its dotted path (`optim.lr`, `env.decision_interval`). Every
// problem is one line that says what to fix. Pure TS + zod.
import { z } from 'zod';
import { RunConfigSchema } from './config.ts';
import { jsonSchemaAt, jsonSchemaOf, problemLines, problemText, schemaFields as fieldsOf, unknownFieldMessage, unwrapSchema as unwrap, type JsonSchema } from './config-problems.ts';
import { WALK_FIGURES } from './trading-eval.ts';

/** Most trials one sweep plans (a grid's product, or a random search's `trials`). */
export const MAX_TRIALS = 1000;
/** Most training seeds per trial (a GPU seed group trains up to 16 at once; more train one after another). */
export const MAX_TRIAL_SEEDS = 100;
/** Most parameters a sweep varies. */
export const MAX_PARAMS = 32;
/** Most values one `values` list, or one grid range (`steps`), gives. */
export const MAX_CHOICES = 100;

/** A sweep's name: its folder is `<runsDir>/<name>-sweep`, its trials' runs `<name>-t<k>-seed<S>`. */
export const SweepNameSchema = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-" only, starting with a letter, digit or "_"');

/** The validation figure trials are ranked by: a trading walk figure of the validation span, or the episodic evaluation figure. */
export const SWEEP_METRICS = [...WALK_FIGURES, 'eval_mean_reward_bps', 'eval_mean_return'] as const;
export type SweepMetric = (typeof SWEEP_METRICS)[number];

/**
 * The validation figures a constraint may bound: what a trial's summary over seeds reports
 * (main/cli/seeds.ts summarizeSeeds): a trading run's walk figures and trade_fraction on the
 * validation span and eval_mean_reward_bps; a CartPole run's eval_mean_return.
 */
export const TRADING_CONSTRAINT_FIGURES = [...WALK_FIGURES, 'trade_fraction', 'eval_mean_reward_bps'] as const;
export const CONSTRAINT_FIGURES = [...TRADING_CONSTRAINT_FIGURES, 'eval_mean_return'] as const;
export type ConstraintFigure = (typeof CONSTRAINT_FIGURES)[number];
/** Most constraints one sweep file sets. */
export const MAX_CONSTRAINTS = 16;

/**
 * A bound on a trial's mean validation figure over its seeds, in the figure's own unit (return,
 * costs, max_drawdown, trade_fraction: fractions, 0.01 = 1%; turnover: times equity): a trial
 * whose mean is above `max` or below `min` is not eligible (listed with the reason, never chosen).
 */
export const SweepConstraintSchema = z.strictObject({
  min: z.number().optional(),
  max: z.number().optional(),
});
export type SweepConstraint = z.infer<typeof SweepConstraintSchema>;
export type SweepConstraints = Partial<Record<ConstraintFigure, SweepConstraint>>;

/** A value a parameter takes: what a config field holds (a number, a string, a boolean, or a list such as network.hidden). */
const LeafValueSchema = z.union([z.number(), z.string(), z.boolean(), z.array(z.number())]);
export type ParamValue = z.infer<typeof LeafValueSchema>;

/**
 * One parameter of the search: `values` (choices, tried in order in a grid, drawn uniformly in a
 * random search), or a range `min`..`max` (uniform, or log-uniform with `log`; a grid takes
 * `steps` evenly spaced values, in log space with `log`). Integer fields get whole numbers.
 */
export const SweepParamSchema = z.strictObject({
  values: z.array(LeafValueSchema).min(1).max(MAX_CHOICES).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  log: z.boolean().default(false),
  steps: z.number().int().min(2).max(MAX_CHOICES).optional(),
});
export type SweepParam = z.infer<typeof SweepParamSchema>;

/** The sweep file as written (before the checks against the config schema: parseSweepFile). */
export const SweepFileSchema = z.strictObject({
  name: SweepNameSchema,
  /** What the sweep is for and why its bounds are what they are, in words (kept with the state; changes nothing). */
  description: z.string().max(2000).optional(),
  /** The base config: a bundled or user preset name, or a config file (relative to the sweep file's folder). Exactly one. */
  preset: z.string().min(1).max(64).optional(),
  config: z.string().min(1).max(4096).optional(),
  method: z.enum(['grid', 'random']),
  /** Random search: how many trials to draw. A grid has one trial per combination. */
  trials: z.number().int().min(1).max(MAX_TRIALS).optional(),
  /** Seed of the random search's draws (the same seed draws the same trials). */
  sample_seed: z.number().int().nonnegative().max(2 ** 31 - 1).default(1),
  /** Training seeds per trial: first_seed (default: the base config's seed), +1, ... */
  seeds: z.number().int().min(1).max(MAX_TRIAL_SEEDS).default(3),
  first_seed: z.number().int().nonnegative().max(2 ** 31 - 1).optional(),
  /** The validation figure ranked (its mean over seeds, with its 95% Student-t interval). */
  metric: z.enum(SWEEP_METRICS),
  /** Whether a larger (max) or smaller (min) metric is better. */
  goal: z.enum(['max', 'min']).default('max'),
  /** Bounds on other validation figures (figure -> { min, max }): only trials whose means keep them are ranked and can be chosen. */
  constraints: z.record(z.string(), SweepConstraintSchema).optional(),
  /** Config fields set the same in every trial (dotted path -> value), e.g. a shorter schedule. */
  fixed: z.record(z.string(), LeafValueSchema).default({}),
  /** The parameters searched (dotted path -> SweepParam), in the order a grid varies them (the last fastest). */
  params: z.record(z.string(), SweepParamSchema),
});
/** A checked sweep file, defaults filled in. */
export type SweepFile = z.output<typeof SweepFileSchema>;

/** A sweep file that does not hold; `problems` has one line per problem, each saying what to fix. */
export class SweepFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid sweep file:\n  ${problems.join('\n  ')}`);
    this.name = 'SweepFileError';
  }
}

/** Config fields a sweep sets itself: never a parameter. */
const RESERVED: Record<string, string> = {
  name: 'the sweep names every trial run itself (<name>-t<k>-seed<S>)',
  seed: "the sweep's `seeds` and `first_seed` choose each trial's training seeds",
  'env.kind': 'the environment is the base config\'s: sweep one environment at a time',
};

/** A config field's schema and kind, found by its dotted path. */
export interface ConfigField {
  schema: z.ZodType;
  /** Its JSON Schema form (range, unit), for problems in the config's own words (common/config-problems.ts). */
  json: JsonSchema | undefined;
  /** number (with whether it is an integer), or another kind (string, enum, boolean, list) that takes `values` only. */
  numeric: boolean;
  integer: boolean;
}

/**
 * The field of the run config schema at a dotted path (`optim.lr`), or a line saying why there
 * is none: an unknown name (with the names that exist there) or a section instead of a field.
 */
export function configField(path: string): ConfigField | string {
  const parts = path.split('.');
  let cur: z.ZodType = RunConfigSchema;
  for (const [i, key] of parts.entries()) {
    const fields = fieldsOf(cur);
    const here = parts.slice(0, i).join('.');
    if (!fields) return `${here} is a field, not a section: it has no '${key}'`;
    const next = fields.get(key);
    if (!next) return unknownFieldMessage(key, [...fields.keys()], here ? `${here}.` : '', 'the config');
    cur = next;
  }
  if (fieldsOf(cur)) return `is a section, not a field: name a field inside it, one of ${[...fieldsOf(cur)!.keys()].map((k) => `${path}.${k}`).join(', ')}`;
  const leaf = unwrap(cur) as z.ZodType & { def: { type: string }; isInt?: boolean };
  return { schema: cur, json: jsonSchemaAt(jsonSchemaOf(RunConfigSchema), parts), numeric: leaf.def.type === 'number', integer: leaf.def.type === 'number' && leaf.isInt === true };
}

/** The field's complaint about `value` in the config's own words (a list's entry named), or undefined when it takes it. */
function fieldRefuses(field: ConfigField, value: unknown): string | undefined {
  const r = field.schema.safeParse(value);
  if (r.success) return undefined;
  return r.error.issues
    .map((i) => {
      const list = i.path.length && Array.isArray(value) ? (value as unknown[]) : undefined;
      const entry = list ? Number(i.path[0]) : undefined;
      const text = problemText(i, list && entry !== undefined ? list[entry] : value, field.json);
      return entry === undefined ? text : `entry ${entry + 1}: ${text}`;
    })
    .join('; ');
}

/** Problems of one searched parameter (`at` is its place in the file, e.g. `params.optim.lr`). */
function paramProblems(at: string, p: SweepParam, field: ConfigField, method: SweepFile['method']): string[] {
  const out: string[] = [];
  const range = p.min !== undefined || p.max !== undefined;
  if (p.values && range) return [`${at}: give either values (choices) or min and max (a range), not both`];
  if (!p.values && !range) return [`${at}: give values (a list of choices) or min and max (a range)`];
  if (p.values) {
    if (p.log || p.steps !== undefined) out.push(`${at}: log and steps belong to a range (min, max); a values list is tried as written`);
    for (const [k, v] of p.values.entries()) {
      const why = fieldRefuses(field, v);
      if (why) out.push(`${at}.values[${k}]: ${why}`);
    }
    return out;
  }
  if (!field.numeric) return [`${at}: a range (min, max) needs a number field; this field takes values: give them as a values list`];
  if (p.min === undefined || p.max === undefined) return [`${at}: a range needs both min and max`];
  if (!(p.min < p.max)) out.push(`${at}: min (${p.min}) must be below max (${p.max}); for a single value put it in fixed`);
  if (p.log && p.min <= 0) out.push(`${at}: log scale needs a positive range: min is ${p.min}; give min > 0 (e.g. ${p.max > 0 ? p.max / 100 : 1e-6}) or drop log`);
  for (const [edge, v] of [['min', p.min], ['max', p.max]] as const) {
    const why = fieldRefuses(field, field.integer ? Math.round(v) : v);
    if (why) out.push(`${at}.${edge}: ${why}`);
  }
  if (field.integer && Math.ceil(p.min) > Math.floor(p.max)) out.push(`${at}: an integer field needs a whole number between min (${p.min}) and max (${p.max})`);
  if (method === 'grid' && p.steps === undefined) out.push(`${at}: a grid needs steps for a range: how many values from min to max (at least 2)`);
  if (method === 'random' && p.steps !== undefined) out.push(`${at}: steps is for a grid; a random search draws from the whole range (drop steps, or use values)`);
  return out;
}

/** Problems of the file's constraints: an unknown figure (with the figures the runs report), a bound missing, min above max. */
function constraintProblems(constraints: Record<string, SweepConstraint>): string[] {
  const out: string[] = [];
  const entries = Object.entries(constraints);
  if (entries.length > MAX_CONSTRAINTS) out.push(`constraints: at most ${MAX_CONSTRAINTS} constraints (got ${entries.length})`);
  for (const [name, c] of entries) {
    const at = `constraints.${name}`;
    if (!(CONSTRAINT_FIGURES as readonly string[]).includes(name))
      out.push(`${at}: unknown validation figure (misspelled?): a trading run reports ${TRADING_CONSTRAINT_FIGURES.join(', ')}; a CartPole run eval_mean_return`);
    else if (c.min === undefined && c.max === undefined) out.push(`${at}: give max (the trial's mean over seeds may not exceed it), min (nor fall below it), or both, e.g. { "max": 50 }`);
    else if (c.min !== undefined && c.max !== undefined && c.min > c.max) out.push(`${at}: min (${c.min}) must not be above max (${c.max}): no trial could keep it`);
  }
  return out;
}

/** `turnover <= 50`, `return >= 0`, `0 <= return <= 0.1`: a constraint in words, its bounds written by `bound`. */
export function constraintText(figure: string, c: SweepConstraint, bound: (v: number) => string = String): string {
  if (c.min !== undefined && c.max !== undefined) return `${bound(c.min)} <= ${figure} <= ${bound(c.max)}`;
  return c.max !== undefined ? `${figure} <= ${bound(c.max)}` : `${figure} >= ${bound(c.min!)}`;
}

/**
 * Why a trial with these mean validation figures is not eligible (one clause per broken
 * constraint, e.g. `validation turnover 63.21 is above its max 50`), or an empty list when it
 * keeps every constraint. A figure the runs do not report (or report as NaN) breaks its constraint.
 */
export function constraintBreaches(constraints: SweepConstraints, means: Partial<Record<ConstraintFigure, number>>): string[] {
  const out: string[] = [];
  for (const [figure, c] of Object.entries(constraints) as [ConstraintFigure, SweepConstraint][]) {
    const v = means[figure];
    const shown = v === undefined ? '' : String(Number(v.toPrecision(4)));
    if (v === undefined || !Number.isFinite(v)) out.push(`the runs report no finite validation ${figure}`);
    else if (c.max !== undefined && v > c.max) out.push(`validation ${figure} ${shown} is above its max ${c.max}`);
    else if (c.min !== undefined && v < c.min) out.push(`validation ${figure} ${shown} is below its min ${c.min}`);
  }
  return out;
}

/** Number of values a parameter gives a grid (an integer range may give fewer distinct ones: see gridValues). */
function gridSize(p: SweepParam): number {
  return p.values?.length ?? p.steps ?? 1;
}

/**
 * Parses a sweep file: the shape (zod), then every path and value against the run config schema,
 * the ranges, the method's needs and the trial count.
 * @throws SweepFileError listing every problem, one line each.
 */
export function parseSweepFile(input: unknown): SweepFile {
  const r = SweepFileSchema.safeParse(input);
  if (!r.success) throw new SweepFileError(problemLines(SweepFileSchema, input, r.error.issues, 'the sweep file'));
  const f = r.data;
  const out: string[] = [];
  if ((f.preset === undefined) === (f.config === undefined)) out.push('preset / config: give exactly one base config: "preset": NAME (resources/presets) or "config": FILE (relative to the sweep file)');
  const entries = Object.entries(f.params);
  if (entries.length === 0) out.push('params: give at least one parameter to search, e.g. "optim.lr": { "min": 1e-5, "max": 1e-3, "log": true }');
  if (entries.length > MAX_PARAMS) out.push(`params: at most ${MAX_PARAMS} parameters (got ${entries.length})`);
  for (const [path, value] of Object.entries(f.fixed)) {
    const at = `fixed.${path}`;
    const field = RESERVED[path] ? `is set by the sweep: ${RESERVED[path]}` : configField(path);
    if (typeof field === 'string') out.push(`${at}: ${field}`);
    else {
      const why = fieldRefuses(field, value);
      if (why) out.push(`${at}: ${why}`);
    }
    if (f.params[path]) out.push(`${at}: is also a searched parameter: keep it in one of fixed and params`);
  }
  for (const [path, p] of entries) {
    const at = `params.${path}`;
    const field = RESERVED[path] ? `is set by the sweep: ${RESERVED[path]}` : configField(path);
    if (typeof field === 'string') out.push(`${at}: ${field}`);
    else out.push(...paramProblems(at, p, field, f.method));
  }
  out.push(...constraintProblems(f.constraints ?? {}));
  if (f.method === 'random' && f.trials === undefined) out.push(`trials: a random search needs the number of trials to draw (1 to ${MAX_TRIALS})`);
  if (f.method === 'grid') {
    if (f.trials !== undefined) out.push('trials: a grid has one trial per combination of its values; drop trials (or use method random)');
    const product = entries.reduce((n, [, p]) => n * gridSize(p), 1);
    if (product > MAX_TRIALS) out.push(`params: the grid has ${product} trials (${entries.map(([, p]) => gridSize(p)).join(' x ')}), more than ${MAX_TRIALS}: fewer values or steps, or method random`);
  }
  if (out.length) throw new SweepFileError(out);
  return f;
}
