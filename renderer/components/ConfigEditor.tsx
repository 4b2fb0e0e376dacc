// Config editor: every field of the run config with its default, unit and valid range (from the
// zod schema), the problem next to each invalid field, presets (load, save as), and the diff of
// the current config against the preset it came from.
import { useState } from 'react';
import type { RunConfigInput } from '../../common/config.ts';
import type { Preset } from '../../common/protocol.ts';
import { configDiff, editorRows, fieldHelpText, fieldText, getAt, parseFieldText, setAt, valueText, variantDefaults, type EditorRow, type FieldSpec } from '../config/fields.ts';
import { memoryEstimateText } from '../config/memory.ts';
import { runTitle } from '../lib/run-table.ts';

export interface EditorState {
  draft: Record<string, unknown>;
  /** The preset the draft came from (defaults filled in) and its name. */
  base: Record<string, unknown>;
  baseName: string;
  /** Text typed into fields, kept while it is being edited (e.g. "0." of "0.001"). */
  texts: Record<string, string>;
}

interface Props {
  editor: EditorState;
  setEditor: (e: EditorState) => void;
  problems: Map<string, string>;
  presets: Preset[];
  onLoadPreset: (p: Preset) => void;
  onSavePreset: (name: string) => Promise<void>;
  disabled: boolean;
  /**
   * Shows `editor` as the config of a run (live or past) instead of the draft: every field
   * read-only, `reason` said above them, and a button that copies it into the draft.
   */
  readOnly?: { reason: string; onEditCopy: () => void };
}

/** The id of the input of config field `path` ("optim.lr" -> "cfg-optim-lr"). */
export const inputId = (path: string) => `cfg-${path.replace(/\./g, '-')}`;

/** Every config field with its default, unit and range; problems shown beside their fields; presets and the diff against the loaded one. */
export function ConfigEditor({ editor, setEditor, problems, presets, onLoadPreset, onSavePreset, disabled: busy, readOnly }: Props) {
  const disabled = busy || !!readOnly;
  const [saveName, setSaveName] = useState('');
  const [saveMsg, setSaveMsg] = useState<string | undefined>();
  const rows = editorRows(editor.draft);
  const diff = configDiff(editor.base, editor.draft);
  const shown = new Set(rows.map((r) => r.path));
  const otherProblems = [...problems].filter(([p]) => !shown.has(p));
  const memory = memoryEstimateText(editor.draft);

  const edit = (row: EditorRow, value: unknown, text?: string) => {
    let draft = setAt(editor.draft, row.path, value);
    if (row.kind === 'variant') draft = setAt(editor.draft, row.path.slice(0, -'.kind'.length), variantDefaults(row.path.slice(0, -'.kind'.length), String(value)));
    setEditor({ ...editor, draft, texts: text === undefined ? editor.texts : { ...editor.texts, [row.path]: text } });
  };

  const control = (row: EditorRow) => {
    const value = getAt(editor.draft, row.path);
    const id = inputId(row.path);
    const problem = problems.get(row.path);
    const common = { id, disabled, 'aria-invalid': problem ? true : undefined, 'aria-describedby': `${id}-help${problem ? ` ${id}-err` : ''}` } as const;
    if (row.kind === 'variant' || row.kind === 'enum')
      return (
        <select {...common} value={String(value ?? '')} onChange={(e) => edit(row, e.target.value)}>
          {row.options!.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
    if (row.kind === 'boolean') return <input {...common} type="checkbox" checked={value === true} onChange={(e) => edit(row, e.target.checked)} />;
    const text = editor.texts[row.path] ?? fieldText(value);
    return <input {...common} type="text" inputMode={row.kind === 'string' ? 'text' : 'decimal'} value={text} spellCheck={false} onChange={(e) => edit(row, parseFieldText(row as FieldSpec, e.target.value), e.target.value)} />;
  };

  return (
    <section className="panel config" aria-labelledby="config-title">
      <div className="panel-head">
        <h2 id="config-title">
          Config{' '}
          <kbd className="kbd-hint" title="Ctrl+, moves the focus to the first config field">
            Ctrl+,
          </kbd>
        </h2>
      </div>
      {/* On a row of its own: beside the heading at 1280 px the heading wrapped, the label sat over its box and a copy's name was cut. */}
      <label className="preset-pick">
        Preset{' '}
        <select
          aria-label="Preset"
          value=""
          disabled={disabled}
          title={`the config was loaded from ${editor.baseName}`}
          onChange={(e) => {
            const p = presets.find((x) => `${x.source}:${x.name}` === e.target.value);
            if (p) onLoadPreset(p);
          }}
        >
          <option value="">load a preset… (now: {runTitle(editor.baseName)})</option>
          {presets.map((p) => (
            <option key={`${p.source}:${p.name}`} value={`${p.source}:${p.name}`}>
              {p.name} ({p.source})
            </option>
          ))}
        </select>
      </label>
      {readOnly && (
        <div className="readonly-note" role="note" aria-label="Config shown">
          <span>{readOnly.reason}</span>{' '}
          <button type="button" onClick={readOnly.onEditCopy} title="Copy this config into the editor to change it and start a new run">
            Edit a copy
          </button>
        </div>
      )}
      {!readOnly && (
      <form
        className="save-preset"
        onSubmit={(e) => {
          e.preventDefault();
          onSavePreset(saveName).then(
            () => setSaveMsg(`saved ${saveName}`),
            (err: Error) => setSaveMsg(err.message),
          );
        }}
      >
        <input aria-label="Preset name" placeholder="preset name" value={saveName} onChange={(e) => setSaveName(e.target.value)} />
        <button type="submit" disabled={!saveName || problems.size > 0}>
          Save preset
        </button>
        {saveMsg && <span className="muted">{saveMsg}</span>}
      </form>
      )}
      <div className="fields" role="group" aria-label="Config fields" aria-keyshortcuts="Control+,">
        {rows.map((row) => {
          const id = inputId(row.path);
          const problem = problems.get(row.path);
          const f = row.kind === 'variant' ? undefined : row;
          return (
            <div key={row.path} className={`field${problem ? ' invalid' : ''}`}>
              <label htmlFor={id} title={f?.description ? `${row.path}: ${f.description}` : row.path}>
                {row.label}
              </label>
              {control(row)}
              <span id={`${id}-help`} className="field-help">
                {f ? fieldHelpText(f) : row.kind === 'variant' ? row.options.join(' | ') : ''}
              </span>
              {problem && (
                <span id={`${id}-err`} className="field-error" role="alert">
                  {problem}
                </span>
              )}
            </div>
          );
        })}
        {otherProblems.map(([p, m]) => (
          <p key={p} className="field-error" role="alert">
            {p || 'config'}: {m}
          </p>
        ))}
      </div>
      {memory && (
        <p className="muted" aria-label="Estimated memory" title="replay buffer, networks and batch; the trainer host refuses a config that does not fit the machine">
          Memory: {memory}
        </p>
      )}
      <div className="diff" aria-label="Changes against the preset">
        <h3>
          Changes against {editor.baseName} ({diff.length})
        </h3>
        {diff.length === 0 ? (
          <p className="muted">none</p>
        ) : (
          <ul>
            {diff.map((d) => (
              <li key={d.path}>
                <code>{d.path}</code>: {valueText(d.from)} → <strong>{valueText(d.to)}</strong>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

/** The draft as sent to the host. */
export function draftConfig(editor: EditorState): RunConfigInput {
  return editor.draft as RunConfigInput;
}
