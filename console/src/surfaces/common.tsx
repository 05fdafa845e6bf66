// Pieces the surfaces share: loading a list, the scope editor, a two-step delete, and time.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, type Project } from '../api';
import { Field } from '../forms';

/** Loads with `fetcher` now and on `reload()`; a failure is kept to show, never thrown. */
export function useLoad<T>(fetcher: () => Promise<T>, deps: unknown[] = []) {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    fetcher()
      .then((v) => {
        setValue(v);
        setError(null);
      })
      .catch((e) => setError(e instanceof ApiError ? e.message : String(e)));
  }, deps);
  useEffect(reload, [reload]);
  return { value, error, reload };
}

export function Loaded<T>(props: { state: { value: T | null; error: string | null }; children: (value: T) => ComponentChildren }) {
  if (props.state.error) return <p role="alert">{props.state.error}</p>;
  if (props.state.value === null) return <p class="loading">Loading…</p>;
  return <>{props.children(props.state.value)}</>;
}

export interface ScopeValue {
  global: boolean;
  projects: string[];
}

/** Shared with every project, or with the ones chosen; the server's problems with the projects at `projectsParam`. */
export function ScopeFields(props: {
  projectsParam: string;
  projects: Project[];
  value: ScopeValue;
  onChange: (value: ScopeValue) => void;
  allowGlobal: boolean;
}) {
  const { value, onChange } = props;
  return (
    <fieldset class="scope">
      <legend>Shared with</legend>
      {props.allowGlobal && (
        <label class="inline">
          <input type="checkbox" checked={value.global} onChange={(e) => onChange({ ...value, global: (e.target as HTMLInputElement).checked })} />{' '}
          Every project (global)
        </label>
      )}
      {!value.global && (
        <Field
          param={props.projectsParam}
          label="Projects"
          control={(id, described, invalid) => (
            <select
              id={id}
              multiple
              aria-describedby={described}
              aria-invalid={invalid}
              onChange={(e) => onChange({ ...value, projects: Array.from((e.target as HTMLSelectElement).selectedOptions, (o) => o.value) })}
            >
              {props.projects.map((p) => (
                <option key={p.id} value={p.id} selected={value.projects.includes(p.id)}>
                  {p.name}
                </option>
              ))}
            </select>
          )}
        />
      )}
    </fieldset>
  );
}

/** A destructive action asks once more in place, instead of a browser dialog. */
export function ConfirmButton(props: { label: string; confirm: string; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  return (
    <span class="confirm">
      <button type="button" class="danger" onClick={props.onConfirm}>
        {props.confirm}
      </button>
      <button type="button" class="link" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export const when = (seconds: number) => new Date(seconds * 1000).toLocaleString();

export const projectNames = (ids: string[], projects: Project[]) =>
  ids.map((id) => projects.find((p) => p.id === id)?.name ?? id).join(', ');

/** A short line saying what just happened, read out by screen readers. */
export function Notice(props: { text: string | null }) {
  return (
    <p class="notice" role="status">
      {props.text ?? ''}
    </p>
  );
}
