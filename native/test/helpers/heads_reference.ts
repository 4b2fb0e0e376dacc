// Float64 references of the heads (native/src/model/q_head.h, c51_head.h), written from the papers
// for the tests: the trunk and one head forward from a layout, each head's loss with its gradient
// wrt the head's outputs, and the reverse pass from that gradient to every parameter.
//   Q head: Q = V + A - mean_a A (Wang et al. 2016, eq. 9) or one linear layer; n-step Double DQN
//     target y = r + discount Q_target(s', a*), IS-weighted Huber loss (Mnih et al. 2015).
//   C51: logits per action and atom (dueling per atom, Hessel et al. 2018); the target distribution
//     projected with the triangular kernel of Bellemare et al. 2017, eq. 7,
//     (Phi T z)_i = sum_j [1 - |clamp(T z_j) - z_i| / dz]_0^1 p_j, and the IS-weighted cross-entropy.
import type { HeadsConfig } from '../../../common/config.ts';
import { dense, type HeadLayout, type LearnerBatch, type Slot } from './learner.ts';

/** What the reference needs of a network: shape, dueling, and (for C51) the support. */
export interface RefNet { stateDim: number; nActions: number; dueling: boolean; heads: HeadsConfig }
/** A layout as netInit returns it (trunk, then the heads' layers). */
export interface RefLayout { size: number; trunk: Slot[]; heads: HeadLayout[] }

/** One forward pass, kept for the reverse pass: per row the trunk's activations and the head's outputs. */
export interface RefPass {
  /** [rows][layer + 1][width]: the input, then each trunk layer after ReLU. */
  acts: number[][][];
  /** [rows][outputs]: Q [A] or C51 logits [A x atoms]. */
  out: number[][];
}

const layer = (head: HeadLayout, name: string): Slot => {
  const l = head.layers.find((x) => x.name === name);
  if (!l) throw new Error(`head '${head.name}' has no layer '${name}'`);
  return l;
};

/** Outputs per action of the main head: 1 for Q, atoms for C51. */
export const perAction = (net: RefNet): number => (net.heads.main === 'c51' ? net.heads.c51.atoms : 1);

/** Float64 forward of the trunk and the main head over states [rows x stateDim]. */
export function refForward(net: RefNet, layout: RefLayout, p: ArrayLike<number>, states: ArrayLike<number>): RefPass {
  const rows = states.length / net.stateDim, head = layout.heads[0]!, n = perAction(net), a = net.nActions;
  const pass: RefPass = { acts: [], out: [] };
  for (let r = 0; r < rows; r++) {
    const acts = [Array.from({ length: net.stateDim }, (_, i) => states[r * net.stateDim + i]!)];
    for (const s of layout.trunk) acts.push(dense(p, s, acts.at(-1)!, true));
    const h = acts.at(-1)!;
    let out: number[];
    if (!net.dueling) out = dense(p, head.layers[0]!, h, false);
    else {
      const v = dense(p, layer(head, 'value'), h, false), adv = dense(p, layer(head, 'advantage'), h, false);
      out = adv.map((x, i) => {
        const j = i % n;
        let mean = 0;
        for (let k = 0; k < a; k++) mean += adv[k * n + j]!;
        return v[j]! + x - mean / a;
      });
    }
    pass.acts.push(acts);
    pass.out.push(out);
  }
  return pass;
}

function denseBack(p: ArrayLike<number>, s: Slot, x: number[], dy: number[], g: Float64Array): number[] {
  const dx = new Array<number>(s.in).fill(0);
  for (let j = 0; j < s.out; j++) {
    g[s.b + j]! += dy[j]!;
    for (let i = 0; i < s.in; i++) {
      g[s.w + i * s.out + j]! += x[i]! * dy[j]!;
      dx[i]! += p[s.w + i * s.out + j]! * dy[j]!;
    }
  }
  return dx;
}

/** Float64 gradient wrt every parameter of sum over rows of dOut[r] · out[r] (the pass's first dOut.length rows). */
export function refBackward(net: RefNet, layout: RefLayout, p: ArrayLike<number>, pass: RefPass, dOut: number[][]): Float64Array {
  const g = new Float64Array(layout.size), head = layout.heads[0]!, n = perAction(net), a = net.nActions;
  dOut.forEach((d, r) => {
    const acts = pass.acts[r]!, h = acts.at(-1)!;
    let dh: number[];
    if (!net.dueling) dh = denseBack(p, head.layers[0]!, h, d, g);
    else {
      // d out_{a,j} / d V_j = 1; d out_{a,j} / d A_{k,j} = [a == k] - 1 / A.
      const dv = Array.from({ length: n }, (_, j) => d.filter((_, i) => i % n === j).reduce((x, y) => x + y, 0));
      const dadv = d.map((x, i) => x - dv[i % n]! / a);
      const d1 = denseBack(p, layer(head, 'value'), h, dv, g), d2 = denseBack(p, layer(head, 'advantage'), h, dadv, g);
      dh = d1.map((x, i) => x + d2[i]!);
    }
    for (let l = layout.trunk.length - 1; l >= 0; l--) {
      dh = dh.map((x, i) => (acts[l + 1]![i]! > 0 ? x : 0));
      dh = denseBack(p, layout.trunk[l]!, acts[l]!, dh, g);
    }
  });
  return g;
}

const softmax = (x: number[]): number[] => {
  const top = Math.max(...x), e = x.map((v) => Math.exp(v - top)), s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
};
const argmax = (x: number[]): number => x.indexOf(Math.max(...x));
const atoms = (c51: HeadsConfig['c51']): number[] =>
  Array.from({ length: c51.atoms }, (_, j) => c51.v_min + (j * (c51.v_max - c51.v_min)) / (c51.atoms - 1));

/** Expected values Q(s, a) of one row of outputs: Q itself, or sum_j z_j p_j for C51. */
export function refQ(net: RefNet, out: number[]): number[] {
  if (net.heads.main !== 'c51') return out;
  const z = atoms(net.heads.c51), n = z.length;
  return Array.from({ length: net.nActions }, (_, a) => softmax(out.slice(a * n, a * n + n)).reduce((s, p, j) => s + p * z[j]!, 0));
}

/** The main head's loss on a batch, its TD signal and its gradient wrt the outputs of the s rows. */
export interface RefLoss { loss: number; tdMse: number; td: number[]; dOut: number[][] }

/** Eq. 7 of Bellemare et al. 2017: the target p [atoms] moved by T z_j = r + discount z_j, clamped, projected. */
export function refProjection(c51: HeadsConfig['c51'], p: number[], reward: number, discount: number): number[] {
  const z = atoms(c51), dz = z[1]! - z[0]!;
  return z.map((zi) => p.reduce((m, pj, j) => {
    const tz = Math.min(Math.max(reward + discount * z[j]!, c51.v_min), c51.v_max);
    return m + pj * Math.max(0, 1 - Math.abs(tz - zi) / dz);
  }, 0));
}

/**
 * The main head's loss from the online pass over s (rows 0..B-1) and s' (rows B..2B-1) and the
 * target pass over s'. Q: (1/B) sum w huber(y - Q(s, a)); C51: (1/B) sum w CE(m, p(s, a)).
 */
export function refLoss(net: RefNet, online: RefPass, target: RefPass, batch: LearnerBatch, doubleDqn: boolean, huberDelta: number): RefLoss {
  const b = batch.actions.length, n = perAction(net);
  const out: RefLoss = { loss: 0, tdMse: 0, td: [], dOut: [] };
  for (let i = 0; i < b; i++) {
    const a = batch.actions[i]!, w = batch.weights[i]!, r = batch.rewards[i]!, disc = batch.discounts[i]!;
    const next = target.out[i]!;
    const aStar = argmax(refQ(net, doubleDqn ? online.out[b + i]! : next));
    const d = new Array<number>(net.nActions * n).fill(0);
    if (net.heads.main !== 'c51') {
      const err = r + disc * next[aStar]! - online.out[i]![a]!;
      const abs = Math.abs(err);
      out.loss += w * (abs <= huberDelta ? 0.5 * err * err : huberDelta * (abs - 0.5 * huberDelta));
      out.tdMse += err * err;
      out.td.push(err);
      d[a] = (-w * Math.max(-huberDelta, Math.min(huberDelta, err))) / b;
    } else {
      const c51 = net.heads.c51, z = atoms(c51);
      const m = refProjection(c51, softmax(next.slice(aStar * n, aStar * n + n)), r, disc);
      const logits = online.out[i]!.slice(a * n, a * n + n), p = softmax(logits);
      const ce = -m.reduce((s, mj, j) => s + mj * Math.log(p[j]!), 0);
      out.loss += w * ce;
      out.td.push(ce);
      const err = m.reduce((s, mj, j) => s + mj * z[j]!, 0) - p.reduce((s, pj, j) => s + pj * z[j]!, 0);
      out.tdMse += err * err;
      for (let j = 0; j < n; j++) d[a * n + j] = (w * (p[j]! - m[j]!)) / b;
    }
    out.dOut.push(d);
  }
  out.loss /= b;
  out.tdMse /= b;
  return out;
}
