// Forms: one component that draws fields from the server's own metadata (connectors' credential schemas, event
// descriptors' credential fields, the action catalog's parameters), and the frame every form shares, which shows
// the envelope's message beside the field its `param` names.
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type CredentialField, type DescriptorField, type Problem } from './api';

/** One field, in the union of what the server's metadata says about a value. */
export interface FieldSpec {
  name: string;
  label: string;
  type: string;
  required: boolean;
  secret?: boolean;
  description?: string;
  options?: string[];
  min?: number;
  max?: number;
  integer?: boolean;
  min_length?: number;
  max_length?: number;
  pattern?: string;
  max_items?: number;
  visible_when?: { param: string; equals?: string; not_equals?: string };
  default?: unknown;
}

export type Values = Record<string, unknown>;
export interface KeyValue {
  key: string;
  value: string;
}
/** Choices for the `*_ref` parameter types, by type: the caller loads what exists. */
export type RefOptions = Partial<Record<string, { value: string; label: string }[]>>;

const labelOf = (name: string) => name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

export const fromCredentialSchema = (fields: CredentialField[]): FieldSpec[] =>
  fields.map((f) => ({
    name: f.field,
    label: labelOf(f.field),
    type: f.type,
    required: f.required,
    secret: f.secret,
    description: f.description,
    default: f.default,
  }));

/** A `generated` field is one Arbor chooses, so the form leaves it out. */
export const fromDescriptor = (fields: DescriptorField[]): FieldSpec[] =>
  fields
    .filter((f) => !f.generated)
    .map((f) => ({ name: f.key, label: f.label, type: f.type, required: f.required, secret: f.secret }));

/**
 * The action catalog's parameters: the same names as FieldSpec's, with `name` the parameter's key; the API gives
 * the checks (min, max, lengths, pattern) under `validation`.
 */
export const fromActionParams = (
  params: (Omit<FieldSpec, 'label'> & { label?: string; validation?: Partial<FieldSpec> })[],
): FieldSpec[] => params.map(({ validation, ...p }) => ({ ...validation, ...p, label: p.label ?? labelOf(p.name) }));

export function isVisible(spec: FieldSpec, values: Values): boolean {
  const rule = spec.visible_when;
  if (!rule) return true;
  const other = values[rule.param];
  const text = other === undefined || other === null ? undefined : String(other);
  return (rule.equals === undefined || rule.equals === text) && (rule.not_equals === undefined || rule.not_equals !== text);
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** The checks an editor runs before sending: what the server would say, found without a round trip. */
export function check(fields: FieldSpec[], values: Values, prefix: string): Problem[] {
  const problems: Problem[] = [];
  const at = (name: string) => (prefix ? `${prefix}.${name}` : name);
  for (const spec of fields) {
    if (!isVisible(spec, values)) continue;
    const value = values[spec.name];
    if (isEmpty(value)) {
      if (spec.required) problems.push({ code: 'missing_field', param: at(spec.name), message: `${spec.label} is required.` });
      continue;
    }
    if (typeof value === 'number') {
      if (spec.min !== undefined && value < spec.min)
        problems.push({ code: 'invalid_field', param: at(spec.name), message: `${spec.label} must be at least ${spec.min}.` });
      if (spec.max !== undefined && value > spec.max)
        problems.push({ code: 'invalid_field', param: at(spec.name), message: `${spec.label} must be at most ${spec.max}.` });
      if (spec.integer && !Number.isInteger(value))
        problems.push({ code: 'invalid_field', param: at(spec.name), message: `${spec.label} must be a whole number.` });
    }
    if (typeof value === 'string') {
      if (spec.min_length !== undefined && value.length < spec.min_length)
        problems.push({ code: 'invalid_field', param: at(spec.name), message: `${spec.label} needs at least ${spec.min_length} characters.` });
      if (spec.max_length !== undefined && value.length > spec.max_length)
        problems.push({ code: 'invalid_field', param: at(spec.name), message: `${spec.label} takes at most ${spec.max_length} characters.` });
      if (spec.pattern && !new RegExp(spec.pattern).test(value))
        problems.push({ code: 'invalid_field', param: at(spec.name), message: `${spec.label} must match ${spec.pattern}.` });
    }
    if (Array.isArray(value) && spec.max_items !== undefined && value.length > spec.max_items)
      problems.push({ code: 'invalid_field', param: at(spec.name), message: `${spec.label} takes at most ${spec.max_items} items.` });
  }
  return problems;
}

/** The values to send: hidden fields and empty optional ones left out. */
export function valuesToSend(fields: FieldSpec[], values: Values): Values {
  const out: Values = {};
  for (const spec of fields) {
    const value = values[spec.name];
    if (isVisible(spec, values) && !isEmpty(value)) out[spec.name] = value;
  }
  return out;
}

export function initialValues(fields: FieldSpec[]): Values {
  const out: Values = {};
  for (const spec of fields) if (spec.default !== undefined) out[spec.name] = spec.default;
  return out;
}

// ---- the frame every form shares ----

const Problems = createContext<Problem[]>([]);

/** The problems for a field: those at its param, or inside it (`credentials.auth_headers[0].value`). */
function problemsAt(problems: Problem[], param: string) {
  return problems.filter(
    (p) => p.param !== null && (p.param === param || p.param.startsWith(param + '.') || p.param.startsWith(param + '[')),
  );
}

/** What a form's field ids begin with: a form that shares a page with another one of the same params sets its own. */
const IdPrefix = createContext('field-');

const domId = (prefix: string, param: string) => prefix + param.replace(/[^A-Za-z0-9_-]/g, '-');

/** The param a field shows problems for, and the ones inside it, from the nearest field up. */
function claims(form: HTMLFormElement, param: string): HTMLElement | null {
  for (let at = param; at; at = at.replace(/(\[\d+\]|\.[^.[]*)$/, '')) {
    const field = form.querySelector<HTMLElement>(`[data-param="${CSS.escape(at)}"]`);
    if (field) return field;
    if (!/(\[\d+\]|\.[^.[]*)$/.test(at)) break;
  }
  return null;
}

/**
 * A form: runs `onSubmit`, shows each problem of a failure beside the field its `param` names, and the others (no
 * param, or one no field shows) at the top; focus goes to the first field at fault.
 * `checkFirst` returns problems found before sending (then nothing is sent).
 */
export function Form(props: {
  label: string;
  submit: string;
  onSubmit: () => Promise<void>;
  checkFirst?: () => Problem[];
  /** Sets the form's field ids apart (`<idPrefix>-field-<param>`) from another form's with the same params. */
  idPrefix?: string;
  /** Problems found while the user edits (a live check): shown like a failure's, without moving the focus. */
  live?: Problem[];
  children: ComponentChildren;
}) {
  const [problems, setProblems] = useState<Problem[]>([]);
  const [unclaimed, setUnclaimed] = useState<Problem[]>([]);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const shown = props.live ? [...props.live, ...problems] : problems;
  // a live check runs after an edit: what the last submit said was about the values before it
  useEffect(() => {
    if (props.live) setProblems([]);
  }, [props.live]);
  useLayoutEffect(() => {
    const element = form.current;
    if (!element) return;
    setUnclaimed(shown.filter((p) => p.param === null || claims(element, p.param) === null));
  }, [problems, props.live]);
  useLayoutEffect(() => {
    const element = form.current;
    if (!element) return;
    const first = problems.map((p) => (p.param === null ? null : claims(element, p.param))).find((f) => f !== null);
    first?.querySelector<HTMLElement>('input, select, textarea, [tabindex]')?.focus();
  }, [problems]);
  const submit = async (event: Event) => {
    event.preventDefault();
    const found = props.checkFirst?.() ?? [];
    setProblems(found);
    if (found.length > 0) return;
    setBusy(true);
    try {
      await props.onSubmit();
    } catch (error) {
      setProblems(error instanceof ApiError ? error.details : [{ code: 'error', param: null, message: String(error) }]);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form aria-label={props.label} onSubmit={submit} noValidate ref={form}>
      {unclaimed.length > 0 && (
        <div class="problems" role="alert">
          <ul>
            {unclaimed.map((p, i) => (
              <li key={i}>{p.message}</li>
            ))}
          </ul>
        </div>
      )}
      <IdPrefix.Provider value={props.idPrefix ? props.idPrefix + '-field-' : 'field-'}>
        <Problems.Provider value={shown}>{props.children}</Problems.Provider>
      </IdPrefix.Provider>
      <button type="submit" disabled={busy}>
        {props.submit}
      </button>
    </form>
  );
}

/** A labelled control with its hint and its problems; `control` gets the id and the describedby to use. */
export function Field(props: {
  param: string;
  label: string;
  required?: boolean;
  hint?: string;
  /** The control shows the problems inside it beside its own rows: the field keeps those at its param only. */
  rows?: boolean;
  control: (id: string, describedBy: string | undefined, invalid: boolean) => ComponentChildren;
}) {
  const all = problemsAt(useContext(Problems), props.param);
  const mine = props.rows ? all.filter((p) => p.param === props.param) : all;
  const id = domId(useContext(IdPrefix), props.param);
  const described = [props.hint ? id + '-hint' : '', mine.length ? id + '-error' : ''].filter(Boolean).join(' ');
  return (
    <div class={'field' + (mine.length ? ' invalid' : '')} data-param={props.param}>
      <label for={id}>
        {props.label}
        {props.required && (
          <span class="required" aria-hidden="true">
            {' '}*
          </span>
        )}
      </label>
      {props.control(id, described || undefined, mine.length > 0)}
      {props.hint && (
        <p class="hint" id={id + '-hint'}>
          {props.hint}
        </p>
      )}
      {mine.length > 0 && (
        <p class="error" id={id + '-error'} role="alert">
          {mine.map((p) => p.message).join(' ')}
        </p>
      )}
    </div>
  );
}

/** A plain text field of a form (a name, a URL), not from metadata. */
export function TextField(props: {
  param: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  required?: boolean;
  hint?: string;
  type?: 'text' | 'url' | 'password';
}) {
  return (
    <Field
      param={props.param}
      label={props.label}
      required={props.required}
      hint={props.hint}
      control={(id, described, invalid) => (
        <input
          id={id}
          type={props.type ?? 'text'}
          value={props.value}
          required={props.required}
          aria-invalid={invalid}
          aria-describedby={described}
          autocomplete="off"
          onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
        />
      )}
    />
  );
}

// ---- the fields drawn from metadata ----

export function SchemaFields(props: {
  fields: FieldSpec[];
  values: Values;
  onChange: (values: Values) => void;
  /** Where the fields sit in the request body: `credentials`, `params`; errors are matched by it. */
  prefix: string;
  refs?: RefOptions;
  /** The refs are suggestions, not the only choices: the fields take any text (a template, `{{ steps.a.outputs.id }}`). */
  openRefs?: boolean;
}) {
  const set = (name: string, value: unknown) => props.onChange({ ...props.values, [name]: value });
  return (
    <>
      {props.fields
        .filter((spec) => isVisible(spec, props.values))
        .map((spec) => (
          <Field
            key={spec.name}
            param={props.prefix ? `${props.prefix}.${spec.name}` : spec.name}
            label={spec.label}
            required={spec.required}
            hint={spec.description}
            rows={Object.hasOwn(ROW_EDITORS, spec.type)}
            control={(id, described, invalid) => (
              <Control
                param={props.prefix ? `${props.prefix}.${spec.name}` : spec.name}
                id={id}
                described={described}
                invalid={invalid}
                spec={spec}
                value={props.values[spec.name]}
                onChange={(value) => set(spec.name, value)}
                refs={props.refs}
                openRefs={props.openRefs}
              />
            )}
          />
        ))}
    </>
  );
}

interface ControlProps {
  /** The param the value sits at: its rows' problems are matched by it. */
  param: string;
  id: string;
  described: string | undefined;
  invalid: boolean;
  spec: FieldSpec;
  value: unknown;
  onChange: (value: unknown) => void;
  refs?: RefOptions;
  openRefs?: boolean;
}

/** A picker for any `*_ref` type the caller gives choices for (a page may name its own, e.g. `router_ref`). */
const isRef = (type: string) => type.endsWith('_ref');

function Control(props: ControlProps) {
  const { id, described, invalid, spec, value, onChange } = props;
  const common = { id, 'aria-describedby': described, 'aria-invalid': invalid, required: spec.required };
  const text = (e: Event) => (e.target as HTMLInputElement).value;
  switch (spec.type) {
    case 'boolean':
      return <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />;
    case 'range':
      return <Range {...props} />;
    case 'number':
      return (
        <input
          type="number"
          {...common}
          min={spec.min}
          max={spec.max}
          step={spec.integer ? 1 : 'any'}
          value={value === undefined ? '' : String(value)}
          onInput={(e) => onChange(text(e) === '' ? undefined : Number(text(e)))}
        />
      );
    case 'select':
      return (
        <select {...common} value={value === undefined ? '' : String(value)} onChange={(e) => onChange(text(e) || undefined)}>
          <option value="">—</option>
          {(spec.options ?? []).map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
    case 'multiselect': {
      const chosen = Array.isArray(value) ? (value as string[]) : [];
      const options = (spec.options ?? []).map((o) => ({ value: o, label: o }));
      return (
        <select
          {...common}
          multiple
          onChange={(e) => onChange(Array.from((e.target as HTMLSelectElement).selectedOptions, (o) => o.value))}
        >
          {options.map((o) => (
            <option key={o.value} value={o.value} selected={chosen.includes(o.value)}>
              {o.label}
            </option>
          ))}
        </select>
      );
    }
    case 'string_list':
      return (
        <textarea
          {...common}
          rows={3}
          value={Array.isArray(value) ? (value as string[]).join('\n') : ''}
          onInput={(e) => onChange(text(e).split('\n').map((s) => s.trim()).filter(Boolean))}
        />
      );
    case 'key_value_list':
      return <KeyValues {...props} />;
    case 'template':
      return <textarea {...common} rows={4} value={(value as string) ?? ''} onInput={(e) => onChange(text(e))} />;
    case 'string':
    case 'url':
      return (
        <input
          type={spec.secret ? 'password' : spec.type === 'url' ? 'url' : 'text'}
          {...common}
          autocomplete={spec.secret ? 'new-password' : 'off'}
          minLength={spec.min_length}
          maxLength={spec.max_length}
          pattern={spec.pattern}
          value={(value as string) ?? ''}
          onInput={(e) => onChange(text(e))}
        />
      );
    default:
      if (Object.hasOwn(ROW_EDITORS, spec.type)) return <Rows {...props} editor={ROW_EDITORS[spec.type]} />;
      if (isRef(spec.type) && props.refs?.[spec.type] && !props.openRefs) {
        return (
          <select {...common} value={(value as string) ?? ''} onChange={(e) => onChange(text(e) || undefined)}>
            <option value="">—</option>
            <Unlisted value={value} choices={props.refs[spec.type]!} />
            {props.refs[spec.type]!.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        );
      }
      if (isRef(spec.type)) {
        const choices = props.refs?.[spec.type];
        return (
          <>
            <input type="text" {...common} list={choices ? id + '-choices' : undefined} value={(value as string) ?? ''} onInput={(e) => onChange(text(e))} />
            {choices && (
              <datalist id={id + '-choices'}>
                {choices.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </datalist>
            )}
          </>
        );
      }
      // json: JSON text
      return <JsonText {...props} />;
  }
}

/** A picker's value that is none of its choices (typed in JSON, or named by name): kept, and shown as it is. */
function Unlisted(props: { value: unknown; choices: { value: string }[] }) {
  const text = typeof props.value === 'string' ? props.value : '';
  return text !== '' && !props.choices.some((o) => o.value === text) ? <option value={text}>{text}</option> : null;
}

/** A range of numbers, `{min, max}`: two number fields (the server says so when one is left empty). */
function Range(props: ControlProps) {
  const given = (props.value ?? {}) as { min?: number; max?: number };
  const [draft, setDraft] = useState({ min: given.min === undefined ? '' : String(given.min), max: given.max === undefined ? '' : String(given.max) });
  const change = (part: Partial<typeof draft>) => {
    const next = { ...draft, ...part };
    setDraft(next);
    const value: { min?: number; max?: number } = {};
    if (next.min !== '') value.min = Number(next.min);
    if (next.max !== '') value.max = Number(next.max);
    props.onChange(next.min === '' && next.max === '' ? undefined : value);
  };
  return (
    <div class="pair" id={props.id} role="group" aria-describedby={props.described}>
      {(['min', 'max'] as const).map((end) => (
        <input
          key={end}
          type="number"
          step="any"
          aria-label={`${props.spec.label} ${end === 'min' ? 'from' : 'to'}`}
          aria-invalid={props.invalid}
          min={props.spec.min}
          max={props.spec.max}
          value={draft[end]}
          onInput={(e) => change({ [end]: (e.target as HTMLInputElement).value })}
        />
      ))}
    </div>
  );
}

function JsonText(props: ControlProps) {
  const [draft, setDraft] = useState(props.value === undefined ? '' : JSON.stringify(props.value, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <textarea
      id={props.id}
      class="code"
      rows={5}
      aria-describedby={props.described}
      aria-invalid={props.invalid || bad}
      value={draft}
      onInput={(e) => {
        const text = (e.target as HTMLTextAreaElement).value;
        setDraft(text);
        try {
          props.onChange(text.trim() === '' ? undefined : JSON.parse(text));
          setBad(false);
        } catch {
          setBad(true);
        }
      }}
    />
  );
}

/** Header-like pairs; values of a secret list are masked and never read back. */
function KeyValues(props: ControlProps) {
  const rows = Array.isArray(props.value) ? (props.value as KeyValue[]) : [];
  const change = (index: number, part: Partial<KeyValue>) =>
    props.onChange(rows.map((row, i) => (i === index ? { ...row, ...part } : row)));
  return (
    <div class="pairs" id={props.id} role="group" aria-describedby={props.described}>
      {rows.map((row, i) => (
        <div class="pair" key={i}>
          <input aria-label={`${props.spec.label} ${i + 1} name`} value={row.key} onInput={(e) => change(i, { key: (e.target as HTMLInputElement).value })} />
          <input
            aria-label={`${props.spec.label} ${i + 1} value`}
            type={props.spec.secret ? 'password' : 'text'}
            autocomplete="new-password"
            value={row.value}
            onInput={(e) => change(i, { value: (e.target as HTMLInputElement).value })}
          />
          <button type="button" class="link" onClick={() => props.onChange(rows.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="link" onClick={() => props.onChange([...rows, { key: '', value: '' }])}>
        Add {props.spec.label.toLowerCase()}
      </button>
    </div>
  );
}

// ---- lists of rows: the structured parameter types, one row an item ----

/** One value of a row: `ref` picks from the caller's choices of that type (a `*_ref`, or `step_ref` for a graph's steps). */
interface Column {
  key: string;
  label: string;
  kind: 'ref' | 'number' | 'text' | 'select';
  ref?: string;
  options?: string[];
  /** Left out of the item when empty. */
  optional?: boolean;
  hint?: string;
  shownWhen?: (row: Values) => boolean;
}

interface RowEditor {
  noun: string;
  columns: Column[];
  /** Each item is the value of its one column (a list of ids), not an object. */
  scalar?: boolean;
  fresh: () => unknown;
  summary?: (rows: Values[]) => string;
}

const ENDPOINT: Column = { key: 'endpoint', label: 'endpoint', kind: 'ref', ref: 'endpoint_ref' };
const weightOf = (row: Values) => (typeof row.weight === 'number' && row.weight > 0 ? row.weight : 0);

/** The item shapes the server validates (ParamSpec and the routers' branches), by parameter type. */
const ROW_EDITORS: Record<string, RowEditor> = {
  endpoint_ref_list: { noun: 'endpoint', columns: [ENDPOINT], scalar: true, fresh: () => '' },
  endpoint_weighted_list: {
    noun: 'endpoint',
    columns: [ENDPOINT, { key: 'weight', label: 'weight', kind: 'number', hint: 'relative: above 0' }],
    fresh: () => ({ endpoint: '', weight: 1 }),
    summary: (rows) => `The weights add up to ${rows.reduce((sum, row) => sum + weightOf(row), 0)}.`,
  },
  endpoint_ordered_list: {
    noun: 'endpoint',
    columns: [ENDPOINT, { key: 'timeout_seconds', label: 'timeout in seconds', kind: 'number', optional: true }],
    fresh: () => ({ endpoint: '' }),
  },
  branches: {
    noun: 'branch',
    columns: [
      { key: 'name', label: 'name', kind: 'text' },
      { key: 'condition', label: 'condition', kind: 'text', optional: true, hint: 'empty: the default branch' },
      { key: 'next_step', label: 'next step', kind: 'ref', ref: 'step_ref' },
    ],
    fresh: () => ({ name: '' }),
  },
  content_rule_list: {
    noun: 'rule',
    columns: [
      { key: 'match', label: 'match', kind: 'select', options: ['keyword', 'regex'] },
      { key: 'pattern', label: 'pattern', kind: 'text' },
      { key: 'action', label: 'action', kind: 'select', options: ['block', 'redact', 'tag'] },
      { key: 'tag', label: 'tag', kind: 'text', shownWhen: (row) => row.action === 'tag' },
      { key: 'on', label: 'on', kind: 'select', options: ['input', 'output', 'both'] },
    ],
    fresh: () => ({ match: 'keyword', pattern: '', action: 'block', on: 'both' }),
  },
};

/** Rows to add, remove and move (the order is the list's: a fallback's, a branch's turn), each with its problems. */
function Rows(props: ControlProps & { editor: RowEditor }) {
  const { editor, spec, param } = props;
  const rows = Array.isArray(props.value) ? (props.value as unknown[]) : [];
  const problems = useContext(Problems);
  const box = useRef<HTMLDivElement>(null);
  const focusAfter = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (focusAfter.current) box.current?.querySelector<HTMLElement>(`[data-focus="${focusAfter.current}"]`)?.focus();
    focusAfter.current = null;
  });
  const send = (next: unknown[]) => props.onChange(next.length === 0 ? undefined : next);
  const setCell = (index: number, column: Column, raw: string) => {
    const cell = raw === '' ? undefined : column.kind === 'number' ? Number(raw) : raw;
    send(
      rows.map((row, i) => {
        if (i !== index) return row;
        if (editor.scalar) return cell ?? '';
        const item: Values = { ...(row as Values) };
        if (cell === undefined && (column.optional || column.kind === 'number')) delete item[column.key];
        else item[column.key] = cell ?? '';
        // a value a hidden column holds is no part of the item (a tag for a rule that blocks)
        for (const other of editor.columns) if (other.shownWhen && !other.shownWhen(item)) delete item[other.key];
        return item;
      }),
    );
  };
  const move = (index: number, by: -1 | 1) => {
    const next = [...rows];
    [next[index], next[index + by]] = [next[index + by], next[index]];
    // the focus follows the row; at an end of the list, to the one move button left enabled
    const to = index + by;
    const atEnd = to === 0 || to === rows.length - 1;
    focusAfter.current = `${(by < 0) !== atEnd ? 'up' : 'down'}-${to}`;
    send(next);
  };
  const optionsOf = (column: Column) =>
    column.kind === 'select' ? (column.options ?? []).map((o) => ({ value: o, label: o })) : (props.refs?.[column.ref!] ?? []);
  const cell = (row: unknown, i: number, column: Column) => {
    const value = editor.scalar ? row : (row as Values)[column.key];
    const at = editor.scalar ? `${param}[${i}]` : `${param}[${i}].${column.key}`;
    const label = `${spec.label} ${i + 1} ${column.label}`;
    const common = {
      'aria-label': label,
      'aria-invalid': problemsAt(problems, at).length > 0,
      onInput: (e: Event) => setCell(i, column, (e.target as HTMLInputElement).value),
    };
    const text = value === undefined || value === null ? '' : String(value);
    const choices = optionsOf(column);
    if (column.kind === 'text' || (column.kind === 'ref' && choices.length === 0)) return <input type="text" {...common} value={text} title={column.hint} />;
    if (column.kind === 'number') return <input type="number" step="any" {...common} value={text} title={column.hint} />;
    return (
      <select {...common} value={text}>
        {column.kind === 'ref' && <option value="">—</option>}
        <Unlisted value={text} choices={choices} />
        {choices.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  };
  return (
    <div class="rows" id={props.id} role="group" aria-label={spec.label} aria-describedby={props.described} ref={box}>
      {rows.length === 0 && <p class="hint">None yet{spec.required ? `: add at least one ${editor.noun}` : ''}.</p>}
      <ol>
        {rows.map((row, i) => {
          const mine = problemsAt(problems, `${param}[${i}]`);
          const columns = editor.columns.filter((c) => editor.scalar || !c.shownWhen || c.shownWhen(row as Values));
          return (
            <li key={i} class={'row' + (mine.length ? ' invalid' : '')} data-param={`${param}[${i}]`}>
              {columns.map((column) => (
                <span key={column.key} class="cell">
                  {cell(row, i, column)}
                </span>
              ))}
              <button type="button" class="link" data-focus={`up-${i}`} disabled={i === 0} aria-label={`Move ${spec.label} ${i + 1} up`} onClick={() => move(i, -1)}>
                ↑
              </button>
              <button
                type="button"
                class="link"
                data-focus={`down-${i}`}
                disabled={i === rows.length - 1}
                aria-label={`Move ${spec.label} ${i + 1} down`}
                onClick={() => move(i, 1)}
              >
                ↓
              </button>
              <button type="button" class="link" aria-label={`Remove ${spec.label} ${i + 1}`} onClick={() => send(rows.filter((_, j) => j !== i))}>
                Remove
              </button>
              {mine.length > 0 && (
                <p class="error" role="alert">
                  {mine.map((p) => p.message).join(' ')}
                </p>
              )}
            </li>
          );
        })}
      </ol>
      {editor.summary && rows.length > 0 && <p class="hint">{editor.summary(rows as Values[])}</p>}
      <button type="button" onClick={() => send([...rows, editor.fresh()])}>
        Add {editor.noun} to {spec.label.toLowerCase()}
      </button>
    </div>
  );
}
