// Reads the scalar block (DESIGN section 4) through the layout the addon exports: no offset is
// hard-coded here. The block is an ArrayBuffer over native memory (pinned host memory on CUDA).
import type { ScalarLayout } from './addon.ts';

/** One snapshot of the scalar block; names match the C++ fields. The vectors hold their valid entries only. */
export type Scalars = Record<string, number> & { causal_per_feature: number[]; c51_greedy_dist: number[] };

/**
 * Reads every field of a scalar block (causal_per_feature cut to causal_features entries,
 * c51_greedy_dist to c51_atoms).
 * @param block ArrayBuffer of exactly `layout.size` bytes.
 * @throws RangeError if the buffer size does not match the layout.
 */
export function readScalars(block: ArrayBuffer, layout: ScalarLayout): Scalars {
  if (block.byteLength !== layout.size) {
    throw new RangeError(`scalar block must be ${layout.size} bytes, got ${block.byteLength}`);
  }
  const view = new DataView(block);
  const out: Record<string, number | number[]> = {};
  for (const [name, f] of Object.entries(layout.fields)) {
    const read = (off: number): number => {
      switch (f.type) {
        case 'f64': return view.getFloat64(off, true);
        case 'i64': return Number(view.getBigInt64(off, true));
        case 'i32': return view.getInt32(off, true);
        case 'u32': return view.getUint32(off, true);
      }
    };
    if (f.length === 1) out[name] = read(f.offset);
    else out[name] = Array.from({ length: f.length }, (_, i) => read(f.offset + i * 8));
  }
  out.causal_per_feature = (out.causal_per_feature as number[]).slice(0, out.causal_features as number);
  out.c51_greedy_dist = (out.c51_greedy_dist as number[]).slice(0, out.c51_atoms as number);
  return out as Scalars;
}

/** Names of the tensors whose NaN bit is set in `flags`. */
export function nanTensors(flags: number, layout: ScalarLayout): string[] {
  return layout.nanFlagNames.filter((_, bit) => (flags >>> bit) & 1);
}
