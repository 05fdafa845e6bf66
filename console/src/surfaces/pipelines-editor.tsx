// The pipeline definition editor: the run parameters it declares, and its steps in order, each with the steps it
// depends on and a form generated from its action's parameters in the catalog. The server checks the whole
// definition on save and its problems appear beside the fields they name (`steps[1].params.url`).
import { useState } from 'preact/hooks';
import { pipelinesApi, type ActionCatalog, type Pipeline, type PipelineDefinition, type PipelineParameter, type PipelineStep, type Problem } from '../api';
import { Field, Form, SchemaFields, TextField, check, fromActionParams, initialValues, valuesToSend, type RefOptions, type Values } from '../forms';
import { navigate } from '../router';

const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'model_ref', 'cluster_ref', 'project_ref', 'endpoint_ref', 'credential_ref'];

interface ParameterDraft {
  key: number;
  name: string;
  type: string;
  required: boolean;
  /** As typed: text for a string parameter, JSON for the others. */
  default: string;
  description: string;
}

interface StepDraft {
  key: number;
  id: string;
  name: string;
  action: string;
  params: Values;
  depends_on: string[];
  condition: string;
  on_failure: 'fail' | 'continue';
  /** The step's retry as loaded: the editor changes its attempts and keeps the rest. */
  retry: PipelineStep['retry'];
  timeout_seconds?: number;
}

let nextKey = 1;

const holdsTemplate = (value: unknown) => typeof value === 'string' && value.includes('{{');

const parameterDraft = (p: PipelineParameter): ParameterDraft => ({
  key: nextKey++,
  name: p.name,
  type: p.type ?? 'string',
  required: p.required === true,
  default: p.default === undefined || p.default === null ? '' : typeof p.default === 'string' && (p.type ?? 'string') === 'string' ? p.default : JSON.stringify(p.default),
  description: p.description ?? '',
});

const stepDraft = (s: PipelineStep): StepDraft => ({
  key: nextKey++,
  id: s.id,
  name: s.name ?? '',
  action: s.action,
  params: s.params ?? {},
  depends_on: s.depends_on ?? [],
  condition: s.condition ?? '',
  on_failure: s.on_failure ?? 'fail',
  retry: s.retry,
  timeout_seconds: s.timeout_seconds,
});

const emptyStep = (index: number): StepDraft => stepDraft({ id: `step_${index + 1}`, action: '' });

/** A default as the API takes it: a string parameter's text as it is, any other parsed as JSON where it is JSON. */
function defaultValue(p: ParameterDraft): unknown {
  if (p.default.trim() === '') return undefined;
  if (p.type === 'string') return p.default;
  try {
    return JSON.parse(p.default);
  } catch {
    return p.default; // the server names what is wrong with it
  }
}

/** Edits `pipeline`, or makes a new one when there is none. */
export function PipelineEditor(props: { catalog: ActionCatalog; pipeline: Pipeline | null; refs: RefOptions }) {
  const original = props.pipeline?.definition;
  const [name, setName] = useState(original?.name ?? '');
  const [description, setDescription] = useState(original?.description ?? '');
  const [parameters, setParameters] = useState<ParameterDraft[]>((original?.parameters ?? []).map(parameterDraft));
  const [steps, setSteps] = useState<StepDraft[]>(original ? original.steps.map(stepDraft) : [emptyStep(0)]);
  const actions = props.catalog.data;
  const fieldsOf = (action: string) => fromActionParams(actions.find((a) => a.type === action)?.params ?? []);

  const changeStep = (index: number, change: Partial<StepDraft>) => {
    const before = steps[index];
    setSteps(
      steps.map((s, i) => {
        if (i === index) return { ...s, ...change };
        // a renamed step stays the dependency of the steps that named it
        if (change.id !== undefined && change.id !== before.id) {
          return { ...s, depends_on: s.depends_on.map((d) => (d === before.id ? change.id! : d)) };
        }
        return s;
      }),
    );
  };
  const removeStep = (index: number) => {
    const gone = steps[index].id;
    setSteps(steps.filter((_, i) => i !== index).map((s) => ({ ...s, depends_on: s.depends_on.filter((d) => d !== gone) })));
  };
  const moveStep = (index: number, by: number) => {
    const moved = [...steps];
    [moved[index], moved[index + by]] = [moved[index + by], moved[index]];
    setSteps(moved);
  };
  const changeParameter = (index: number, change: Partial<ParameterDraft>) =>
    setParameters(parameters.map((p, i) => (i === index ? { ...p, ...change } : p)));

  const definition = (): PipelineDefinition => ({
    // what this editor does not show (the pipeline's outputs, its runs' time limit) stays as it was
    ...original,
    name,
    description,
    parameters: parameters.map((p) => ({
      name: p.name,
      type: p.type,
      required: p.required,
      ...(defaultValue(p) === undefined ? {} : { default: defaultValue(p) }),
      ...(p.description ? { description: p.description } : {}),
    })),
    steps: steps.map((s) => ({
      id: s.id,
      ...(s.name ? { name: s.name } : {}),
      action: s.action,
      params: valuesToSend(fieldsOf(s.action), s.params),
      ...(s.depends_on.length > 0 ? { depends_on: s.depends_on } : {}),
      ...(s.condition ? { condition: s.condition } : {}),
      ...(s.on_failure === 'continue' ? { on_failure: s.on_failure } : {}),
      ...(s.retry ? { retry: s.retry } : {}),
      ...(s.timeout_seconds === undefined ? {} : { timeout_seconds: s.timeout_seconds }),
    })),
  });
  // a value holding a template is checked when a run renders it (as the server does), not here
  const checkFirst = (): Problem[] =>
    steps.flatMap((s, i) =>
      check(
        fieldsOf(s.action).filter((f) => !holdsTemplate(s.params[f.name])),
        s.params,
        `steps[${i}].params`,
      ),
    );
  const save = async () => {
    const saved = props.pipeline ? await pipelinesApi.replace(props.pipeline.id, definition()) : await pipelinesApi.create(definition());
    navigate(`/pipelines/${saved.id}`);
  };

  return (
    <section aria-labelledby="pipeline-editor-title">
      <h1 id="pipeline-editor-title">{props.pipeline ? `Edit ${props.pipeline.name}` : 'New pipeline'}</h1>
      <Form label="Pipeline definition" submit="Save pipeline" onSubmit={save} checkFirst={checkFirst}>
        <TextField param="name" label="Pipeline name" required value={name} onInput={setName} />
        <TextField param="description" label="Description" value={description} onInput={setDescription} />

        <h2>Parameters</h2>
        <p class="hint">What a run is started with; steps read them as {'{{ params.name }}'}.</p>
        {parameters.map((p, i) => (
          <fieldset key={p.key} class="parameter">
            <legend>Parameter {i + 1}</legend>
            <TextField param={`parameters[${i}].name`} label="Name" required value={p.name} onInput={(v) => changeParameter(i, { name: v })} />
            <Field
              param={`parameters[${i}].type`}
              label="Type"
              control={(id, described, invalid) => (
                <select id={id} aria-describedby={described} aria-invalid={invalid} value={p.type} onChange={(e) => changeParameter(i, { type: (e.target as HTMLSelectElement).value })}>
                  {PARAMETER_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
              )}
            />
            <Field
              param={`parameters[${i}].required`}
              label="Required"
              control={(id, described) => (
                <input id={id} type="checkbox" aria-describedby={described} checked={p.required} onChange={(e) => changeParameter(i, { required: (e.target as HTMLInputElement).checked })} />
              )}
            />
            <TextField
              param={`parameters[${i}].default`}
              label="Default"
              value={p.default}
              onInput={(v) => changeParameter(i, { default: v })}
              hint={p.type === 'string' ? undefined : 'As JSON: 3, true, ["a", "b"].'}
            />
            <TextField param={`parameters[${i}].description`} label="Description" value={p.description} onInput={(v) => changeParameter(i, { description: v })} />
            <button type="button" class="link" onClick={() => setParameters(parameters.filter((_, j) => j !== i))}>
              Remove parameter {i + 1}
            </button>
          </fieldset>
        ))}
        <p>
          <button
            type="button"
            class="secondary"
            onClick={() => setParameters([...parameters, parameterDraft({ name: '', type: 'string' })])}
          >
            Add parameter
          </button>
        </p>

        <h2>Steps</h2>
        <p class="hint">Steps run when the steps they depend on have finished; steps with nothing between them run side by side.</p>
        {steps.map((s, i) => {
          const action = actions.find((a) => a.type === s.action);
          const others = steps.filter((o) => o.key !== s.key && o.id).map((o) => o.id);
          return (
            <fieldset key={s.key} class="step">
              <legend>
                Step {i + 1}
                {s.id ? ` · ${s.id}` : ''}
              </legend>
              <TextField
                param={`steps[${i}].id`}
                label="Step id"
                required
                value={s.id}
                onInput={(v) => changeStep(i, { id: v })}
                hint={`Later steps read its outputs as {{ steps.${s.id || 'id'}.outputs.name }}.`}
              />
              <TextField param={`steps[${i}].name`} label="Step name" value={s.name} onInput={(v) => changeStep(i, { name: v })} />
              <Field
                param={`steps[${i}].action`}
                label="Action"
                required
                hint={action ? action.description + (action.outputs.length ? ` Outputs: ${action.outputs.join(', ')}.` : '') : undefined}
                control={(id, described, invalid) => (
                  <select
                    id={id}
                    aria-describedby={described}
                    aria-invalid={invalid}
                    value={s.action}
                    onChange={(e) => {
                      const chosen = (e.target as HTMLSelectElement).value;
                      changeStep(i, { action: chosen, params: initialValues(fieldsOf(chosen)) });
                    }}
                  >
                    <option value="">Choose an action</option>
                    {props.catalog.categories.map((c) => (
                      <optgroup key={c.id} label={c.name}>
                        {c.actions.map((type) => (
                          <option key={type} value={type}>
                            {actions.find((a) => a.type === type)?.name ?? type}
                          </option>
                        ))}
                      </optgroup>
                    ))}
                  </select>
                )}
              />
              <Field
                param={`steps[${i}].depends_on`}
                label="Depends on"
                hint={others.length ? undefined : 'No other step yet.'}
                control={(id, described, invalid) => (
                  <select
                    id={id}
                    multiple
                    aria-describedby={described}
                    aria-invalid={invalid}
                    onChange={(e) => changeStep(i, { depends_on: Array.from((e.target as HTMLSelectElement).selectedOptions, (o) => o.value) })}
                  >
                    {others.map((o) => (
                      <option key={o} value={o} selected={s.depends_on.includes(o)}>
                        {o}
                      </option>
                    ))}
                  </select>
                )}
              />
              {action && (
                <fieldset class="params">
                  <legend>{action.name} parameters</legend>
                  <SchemaFields
                    fields={fromActionParams(action.params)}
                    values={s.params}
                    onChange={(params) => changeStep(i, { params })}
                    prefix={`steps[${i}].params`}
                    refs={props.refs}
                    openRefs
                  />
                </fieldset>
              )}
              <details>
                <summary>When it runs, and failures</summary>
                <TextField
                  param={`steps[${i}].condition`}
                  label="Condition"
                  value={s.condition}
                  onInput={(v) => changeStep(i, { condition: v })}
                  hint="Runs only when this holds, e.g. params.env == 'prod'."
                />
                <Field
                  param={`steps[${i}].on_failure`}
                  label="On failure"
                  control={(id, described, invalid) => (
                    <select
                      id={id}
                      aria-describedby={described}
                      aria-invalid={invalid}
                      value={s.on_failure}
                      onChange={(e) => changeStep(i, { on_failure: (e.target as HTMLSelectElement).value as StepDraft['on_failure'] })}
                    >
                      <option value="fail">fail the run</option>
                      <option value="continue">continue the run</option>
                    </select>
                  )}
                />
                <NumberField
                  param={`steps[${i}].retry.max_attempts`}
                  label="Attempts"
                  value={s.retry?.max_attempts}
                  onChange={(v) => changeStep(i, { retry: v === undefined ? undefined : { ...s.retry, max_attempts: v } })}
                  hint="How often to try, for failures another try could fix (1 when empty)."
                />
                <NumberField
                  param={`steps[${i}].timeout_seconds`}
                  label="Step time limit (seconds)"
                  value={s.timeout_seconds}
                  onChange={(v) => changeStep(i, { timeout_seconds: v })}
                />
              </details>
              <div class="step-actions">
                <button type="button" class="link" disabled={i === 0} onClick={() => moveStep(i, -1)}>
                  Move step {i + 1} up
                </button>
                <button type="button" class="link" disabled={i === steps.length - 1} onClick={() => moveStep(i, 1)}>
                  Move step {i + 1} down
                </button>
                <button type="button" class="link" onClick={() => removeStep(i)}>
                  Remove step {i + 1}
                </button>
              </div>
            </fieldset>
          );
        })}
        <p>
          <button type="button" class="secondary" onClick={() => setSteps([...steps, emptyStep(steps.length)])}>
            Add step
          </button>
        </p>
      </Form>
    </section>
  );
}

function NumberField(props: { param: string; label: string; value: number | undefined; onChange: (value: number | undefined) => void; hint?: string }) {
  return (
    <Field
      param={props.param}
      label={props.label}
      hint={props.hint}
      control={(id, described, invalid) => (
        <input
          id={id}
          type="number"
          min={1}
          step={1}
          aria-describedby={described}
          aria-invalid={invalid}
          value={props.value === undefined ? '' : String(props.value)}
          onInput={(e) => {
            const text = (e.target as HTMLInputElement).value;
            props.onChange(text === '' ? undefined : Number(text));
          }}
        />
      )}
    />
  );
}
