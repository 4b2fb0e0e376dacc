// What a run's `heads` section turns on (DESIGN section 4, "Heads"; issue 23), read the same way
// by the config's cross-field checks, the backend choice, the session's scalar streaming and the
// dashboard's Heads panel. Pure TS; mirrors HeadsConfig in native/src/model/heads_config.h.
import type { HeadsConfig } from './config.ts';
import type { SCALAR_NAMES } from './run.ts';

/** The auxiliary parts with a gradient-budget share, in the order the editor lists them. */
export const BUDGET_PARTS = ['iqn', 'ensemble', 'cql'] as const;
export type BudgetPart = (typeof BUDGET_PARTS)[number];

/** Which parts of a run besides its main head are on. */
export interface EnabledParts {
  /** An IQN head trained beside a q or c51 main head (heads.iqn.auxiliary). */
  iqn: boolean;
  /** heads.ensemble.heads > 0. */
  ensemble: boolean;
  /** heads.cql.alpha > 0. */
  cql: boolean;
  /** heads.spectral.sigma_max > 0. */
  spectral: boolean;
}

/** The parts of `h` that are on (each part's own switch; see EnabledParts). */
export function enabledParts(h: HeadsConfig): EnabledParts {
  return { iqn: h.iqn.auxiliary, ensemble: h.ensemble.heads > 0, cql: h.cql.alpha > 0, spectral: h.spectral.sigma_max > 0 };
}

/** True when only today's Q head is on (HeadsConfig::plain_q()): main q and no part enabled. */
export function isPlainQ(h: HeadsConfig): boolean {
  const on = enabledParts(h);
  return h.main === 'q' && !on.iqn && !on.ensemble && !on.cql && !on.spectral;
}

/** The budget shares that count: those of the enabled parts, in BUDGET_PARTS order. */
export function enabledShares(h: HeadsConfig): { part: BudgetPart; share: number }[] {
  const on = enabledParts(h);
  return BUDGET_PARTS.filter((p) => on[p]).map((part) => ({ part, share: h[part].share }));
}

/** A part with a loss of its own: the main head or an auxiliary part with a budget share. */
export type LossPart = 'main' | BudgetPart;

/** Scalar-block fields (SCALAR_NAMES keys) of each part's loss and gradient norm before and after its budget clip. */
export const PART_FIELDS: Record<LossPart, { loss: keyof typeof SCALAR_NAMES; gradNorm: keyof typeof SCALAR_NAMES; clipped: keyof typeof SCALAR_NAMES }> = {
  main: { loss: 'main_loss', gradNorm: 'main_grad_norm', clipped: 'main_grad_clipped' },
  iqn: { loss: 'iqn_loss', gradNorm: 'iqn_grad_norm', clipped: 'iqn_grad_clipped' },
  ensemble: { loss: 'ensemble_loss', gradNorm: 'ensemble_grad_norm', clipped: 'ensemble_grad_clipped' },
  cql: { loss: 'cql_loss', gradNorm: 'cql_grad_norm', clipped: 'cql_grad_clipped' },
};

/**
 * The parts whose loss and gradient norms a run reports: none for a plain Q run (its loss and
 * grad norm are the run's own), else the main head and each enabled budget part.
 */
export function reportedParts(h: HeadsConfig): LossPart[] {
  if (isPlainQ(h)) return [];
  const on = enabledParts(h);
  return ['main', ...BUDGET_PARTS.filter((p) => on[p])];
}

/** A cross-field problem of the heads section: its path inside `heads` and one line saying what to change. */
export interface HeadsProblem {
  path: string[];
  message: string;
}

/**
 * The cross-field rules of a heads section (each field's own range is the schema's): the C51
 * support is ordered, the enabled parts' shares leave the main head some budget, CQL has
 * deterministic Q-values to push down, an auxiliary IQN head sits beside another main head, and
 * spectral normalisation has matrices to act on. [] when the section is consistent.
 */
export function headsProblems(h: HeadsConfig): HeadsProblem[] {
  const out: HeadsProblem[] = [];
  const { v_min, v_max } = h.c51;
  if (!(v_min < v_max)) out.push({ path: ['c51', 'v_max'], message: `v_max (${v_max}) must be above v_min (${v_min}): raise heads.c51.v_max or lower heads.c51.v_min` });
  const shares = enabledShares(h);
  const sum = shares.reduce((a, s) => a + s.share, 0);
  // One share alone is below 1 by its own range; two or more may sum past it.
  if (shares.length > 1 && sum >= 1) {
    const terms = shares.map((s) => `heads.${s.part}.share ${s.share}`).join(' + ');
    out.push({ path: [shares.at(-1)!.part, 'share'], message: `the enabled parts' gradient-budget shares must sum to below 1 (the main head keeps the rest): ${terms} = ${Number(sum.toPrecision(12))}; lower them` });
  }
  if (h.cql.alpha > 0 && h.main === 'iqn')
    out.push({ path: ['cql', 'alpha'], message: "CQL needs a main head with deterministic Q-values: set heads.main to 'q' or 'c51', or heads.cql.alpha to 0" });
  if (h.iqn.auxiliary && h.main === 'iqn')
    out.push({ path: ['iqn', 'auxiliary'], message: "an auxiliary IQN head goes beside a q or c51 main head: set heads.iqn.auxiliary to false (heads.main is already 'iqn') or heads.main to 'q' or 'c51'" });
  if (h.spectral.sigma_max > 0 && !h.spectral.trunk && !h.spectral.heads)
    out.push({ path: ['spectral', 'sigma_max'], message: 'spectral normalisation has no matrices to act on: set heads.spectral.trunk or heads.spectral.heads to true, or heads.spectral.sigma_max to 0' });
  return out;
}

/** The value of atom j of a C51 support: z_j = v_min + j (v_max - v_min) / (atoms - 1). */
export function atomValue(c51: HeadsConfig['c51'], j: number): number {
  return c51.v_min + (j * (c51.v_max - c51.v_min)) / (c51.atoms - 1);
}
