// The configs of the runs on the charts side by side: the run the charts show and every overlaid
// run, one column each under its short name (in its overlay colour; the folder name on hover), one
// row per field that differs.
import type { RunConfig } from '../../common/config.ts';
import { runsConfigDiff } from '../config/runs-diff.ts';
import { shortRunNames } from '../lib/run-table.ts';
import { ink } from '../lib/theme.ts';
import { useTheme } from '../lib/theme-store.ts';

/** A run in the comparison: its folder name, its config, and the colour its overlay is drawn in (none for the shown run). */
export interface ComparedRun {
  name: string;
  config: RunConfig;
  color?: string;
  /** What the run is on the charts ("shown", "overlay"), under its name. */
  role: string;
}

const text = (v: unknown) => (v === undefined ? '–' : v === null ? 'none' : Array.isArray(v) ? `[${v.join(', ')}]` : String(v));

/** A field's path with a line-break opportunity after each '.' and '_', so a narrow column breaks it between words ("optim.lr_decay_steps"), not inside one. */
function fieldPath(path: string) {
  return path.split(/(?<=[._])/).map((part, i) => (i ? [<wbr key={i} />, part] : part));
}

/** The config diff of `runs` (two or more): a table headed "field" and the runs' short names (shortRunNames), each whole in its title. */
export function ConfigCompare({ runs }: { runs: readonly ComparedRun[] }) {
  const theme = useTheme();
  const rows = runsConfigDiff(runs.map((r) => r.config));
  const names = shortRunNames(runs.map((r) => r.name));
  return (
    <div className="diff" role="region" aria-label="Config diff">
      <h3>
        Config diff of the {runs.length} runs on the charts ({rows.length} field{rows.length === 1 ? '' : 's'} differ{rows.length === 1 ? 's' : ''})
      </h3>
      {rows.length === 0 ? (
        <p className="muted">the same config (names aside)</p>
      ) : (
        <div className="runs-scroll">
          {/* The columns share the panel's width (values wrap); past a few runs a minimum width keeps them legible and the panel scrolls. */}
          <table className="runs config-diff" style={{ minWidth: `${9 + 6 * runs.length}em` }}>
            <thead>
              <tr>
                <th scope="col">field</th>
                {runs.map((r, i) => (
                  <th scope="col" key={r.name} title={r.name}>
                    <span className="run-name" style={r.color ? { color: ink(theme, r.color) } : undefined}>
                      {names[i]}
                    </span>
                    <span className="run-role">{r.role}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.path}>
                  <th scope="row">
                    <code>{fieldPath(d.path)}</code>
                  </th>
                  {d.values.map((v, i) => (
                    <td key={runs[i]!.name}>{text(v)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
