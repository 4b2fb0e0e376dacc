// A sweep's trials: the grid's combinations or a seeded random search's draws over the
// parameters of a checked sweep file (common/sweep.ts), and each trial's run config (the base
// config with the fixed fields and the trial's values set by dotted path). Pure TS.
import { ConfigError, parseRunConfig, type RunConfig, type RunConfigInput } from './config.ts';
import { seededRandom } from './random.ts';
import { configField, SweepFileError, type ConfigField, type ParamValue, type SweepFile, type SweepParam } from './sweep.ts';

/** One planned trial: its number (1, 2, ...) and the value of every searched parameter, by dotted path. */
export interface PlannedTrial {
  index: number;
  params: Record<string, ParamValue>;
}

/** A searched parameter's field (parseSweepFile has checked the path exists). */
function fieldOf(path: string): ConfigField {
  const f = configField(path);
  if (typeof f === 'string') throw new RangeError(`${path}: ${f}`);
  return f;
}

/** A drawn or spaced number as the field takes it: a whole number for an integer field, else 6 significant digits, within [min, max]. */
function fieldNumber(v: number, p: SweepParam, integer: boolean): number {
  const lo = integer ? Math.ceil(p.min!) : p.min!;
  const hi = integer ? Math.floor(p.max!) : p.max!;
  const r = integer ? Math.round(v) : Number(v.toPrecision(6));
  return Math.min(hi, Math.max(lo, r));
}

/**
 * The values a grid tries for one parameter: its `values` as written, or `steps` values from min
 * to max evenly spaced (in log space with `log`), ends included; an integer field's are rounded
 * and repeated ones dropped.
 */
export function gridValues(path: string, p: SweepParam): ParamValue[] {
  if (p.values) return p.values;
  const { integer } = fieldOf(path);
  const n = p.steps!;
  const [a, b] = p.log ? [Math.log(p.min!), Math.log(p.max!)] : [p.min!, p.max!];
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const t = a + ((b - a) * k) / (n - 1);
    const v = fieldNumber(p.log ? Math.exp(t) : t, p, integer);
    if (!out.includes(v)) out.push(v);
  }
  return out;
}

/** Every combination of the grid's values, the last parameter varying fastest, numbered from 1. */
export function expandGrid(params: SweepFile['params']): PlannedTrial[] {
  let combos: Record<string, ParamValue>[] = [{}];
  for (const [path, p] of Object.entries(params)) combos = combos.flatMap((c) => gridValues(path, p).map((v) => ({ ...c, [path]: v })));
  return combos.map((params, k) => ({ index: k + 1, params }));
}

/**
 * `trials` draws of every parameter from a random stream seeded by `seed` (common/random.ts): a
 * choice uniformly from `values`, a range uniformly (log-uniformly with `log`) in [min, max]. The
 * same seed and file draw the same trials.
 */
export function sampleRandom(params: SweepFile['params'], trials: number, seed: number): PlannedTrial[] {
  const u = seededRandom(seed);
  const fields = Object.fromEntries(Object.keys(params).map((path) => [path, fieldOf(path)]));
  return Array.from({ length: trials }, (_, k) => {
    const drawn: Record<string, ParamValue> = {};
    for (const [path, p] of Object.entries(params)) {
      if (p.values) drawn[path] = p.values[Math.min(p.values.length - 1, Math.floor(u() * p.values.length))]!;
      else {
        const [a, b] = p.log ? [Math.log(p.min!), Math.log(p.max!)] : [p.min!, p.max!];
        const t = a + (b - a) * u();
        drawn[path] = fieldNumber(p.log ? Math.exp(t) : t, p, fields[path]!.integer);
      }
    }
    return { index: k + 1, params: drawn };
  });
}

/** The sweep's trials: the grid (expandGrid) or the seeded random draws (sampleRandom). */
export function planTrials(file: SweepFile): PlannedTrial[] {
  return file.method === 'grid' ? expandGrid(file.params) : sampleRandom(file.params, file.trials!, file.sample_seed);
}

/** A copy of `config` with each dotted path of `values` set (sections created as needed). */
export function withFields(config: RunConfigInput, values: Record<string, ParamValue>): RunConfigInput {
  const out = structuredClone(config) as Record<string, unknown>;
  for (const [path, v] of Object.entries(values)) {
    const keys = path.split('.');
    let obj = out;
    for (const key of keys.slice(0, -1)) {
      const next = obj[key];
      obj = (obj[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? { ...(next as object) } : {}) as Record<string, unknown>;
    }
    obj[keys.at(-1)!] = v;
  }
  return out as RunConfigInput;
}

/** `optim.lr=0.0003, env.decision_interval=5`: a trial's values in words. */
export function paramsText(params: Record<string, ParamValue>): string {
  return Object.entries(params).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ');
}

/**
 * The run config of every trial: `base` with `fixed` and the trial's values set, named
 * `<name>-t<k>`, validated as a whole.
 * @throws SweepFileError naming each trial whose config does not hold, and why (at most 10 listed).
 */
export function trialConfigs(base: RunConfigInput, file: SweepFile, trials: readonly PlannedTrial[]): RunConfig[] {
  const problems: string[] = [];
  const configs: RunConfig[] = [];
  for (const t of trials) {
    try {
      configs.push(parseRunConfig({ ...withFields(base, { ...file.fixed, ...t.params }), name: trialRunName(file.name, t.index) }));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(`trial ${t.index} (${paramsText(t.params)}): ${e.problems.join('; ')}`);
    }
  }
  if (problems.length) throw new SweepFileError([...problems.slice(0, 10), ...(problems.length > 10 ? [`... and ${problems.length - 10} more trials`] : [])]);
  return configs;
}

/** A trial's run name: `<sweep>-t<k>` (zero-padded to 3 digits); its seeds' runs add `-seed<S>`. */
export function trialRunName(sweep: string, index: number): string {
  return `${sweep}-t${String(index).padStart(3, '0')}`;
}
