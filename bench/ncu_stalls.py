"""Summarises an Nsight Compute source page (SASS, CSV: `ncu -i R --page source --csv --print-source sass`):
warp-state samples per stall reason over the whole kernel, and the instructions with the most samples.
usage: python3 bench/ncu_stalls.py SASS.csv [TOP]"""
import csv
import sys


def number(x):
    try:
        return float(x.replace(',', ''))
    except ValueError:
        return None


def main():
    path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
    with open(path, newline='') as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"#"') or l.startswith('"Address"') or 'Source' in l)
    rows = list(csv.reader(lines[start:]))
    head, body = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
    total_col = next(i for i, h in enumerate(head) if h.startswith('Warp Stall Sampling (All'))
    src_col = head.index('Source')
    stall_cols = [i for i, h in enumerate(head) if h.startswith('stall_') or 'Stall' in h and i != total_col]
    total = sum(number(r[total_col]) or 0 for r in body)
    print(f'{len(body)} instructions, {total:.0f} warp samples')
    sums = {}
    for i in stall_cols:
        sums[head[i]] = sum(number(r[i]) or 0 for r in body)
    for name, v in sorted(sums.items(), key=lambda kv: -kv[1])[:25]:
        print(f'  {name:60s} {v:10.0f}  {100 * v / max(total, 1):5.1f} %')
    print(f'top {top} instructions by samples (index, samples, %, top reasons, source):')
    ranked = sorted(range(len(body)), key=lambda k: -(number(body[k][total_col]) or 0))[:top]
    for k in ranked:
        r = body[k]
        s = number(r[total_col]) or 0
        reasons = sorted(((number(r[i]) or 0, head[i]) for i in stall_cols), reverse=True)[:2]
        why = ', '.join(f'{n.replace("stall_", "")} {v:.0f}' for v, n in reasons if v)
        print(f'  {k:6d} {s:8.0f} {100 * s / max(total, 1):5.1f} %  {why:50s} {r[src_col][:70]}')


if __name__ == '__main__':
    main()
