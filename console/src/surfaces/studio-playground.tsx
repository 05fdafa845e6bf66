// The playground: a situation and questions in (typed by hand, or a template's, filled in), a decision out with a
// probability bar per option, its certainty, whether it acts, and a link to it in history.
import { useState } from 'preact/hooks';
import { studio, type Decision, type Template } from '../api';
import { Field, Form, SchemaFields, type FieldSpec, type Values } from '../forms';
import { linkClick } from '../router';
import { Loaded, useLoad } from './common';
import { studioLink } from './studio';
import { percent } from './studio-charts';
import { AnswerView, QuestionsEditor, newDraft, toDrafts, toQuestions, type Draft } from './studio-questions';

/** The fields of a template's variables, from the JSON Schema the API gives for them. */
export function variableFields(schema: { properties?: Record<string, Record<string, unknown>>; required?: string[] }): FieldSpec[] {
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const type = p.type;
    const spec: FieldSpec = {
      name,
      label: name,
      required: (schema.required ?? []).includes(name),
      description: typeof p.description === 'string' ? p.description : undefined,
      type: 'json',
    };
    if (Array.isArray(p.enum)) return { ...spec, type: 'select', options: p.enum.map(String) };
    if (type === 'string') return { ...spec, type: 'template', max_length: p.maxLength as number | undefined };
    if (type === 'integer' || type === 'number')
      return { ...spec, type: 'number', integer: type === 'integer', min: p.minimum as number | undefined, max: p.maximum as number | undefined };
    if (type === 'boolean') return { ...spec, type: 'boolean' };
    return spec;
  });
}

interface Chosen {
  template: Template;
  baseline: string;
  fields: FieldSpec[];
}

export function Playground() {
  const templates = useLoad(() => studio.templates({ limit: 100 }));
  const models = useLoad(() => studio.models());
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [drafts, setDrafts] = useState<Draft[]>([newDraft(1)]);
  const [state, setState] = useState('');
  const [variables, setVariables] = useState<Values>({});
  const [model, setModel] = useState('');
  const [decision, setDecision] = useState<Decision | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const choose = async (templateId: string) => {
    setProblem(null);
    if (!templateId) {
      setChosen(null);
      return;
    }
    try {
      const template = await studio.template(templateId);
      const filled = toDrafts(template.questions);
      const fields = Object.keys(template.variables ?? {}).length > 0 ? variableFields(await studio.schema(templateId)) : [];
      setChosen({ template, baseline: JSON.stringify(toQuestions(filled)), fields });
      setDrafts(filled);
      setVariables({});
      if (template.metadata['studio.sample'] && !state) setState(template.metadata['studio.sample']);
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    }
  };
  const questions = toQuestions(drafts);
  // the template's own questions run as the template (and count in its history); edited ones run ad hoc
  const asTemplate = chosen !== null && JSON.stringify(questions) === chosen.baseline;
  const byVariables = asTemplate && chosen.fields.length > 0;

  const submit = async () => {
    const body: Record<string, unknown> = {};
    if (asTemplate) body.template = `${chosen.template.id}@${chosen.template.version}`;
    else body.questions = questions;
    if (byVariables) body.variables = variables;
    else body.state = state;
    if (model) body.model = model;
    setDecision(null);
    setDecision(await studio.decide(body));
  };

  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title">Playground</h1>
      <p>A situation and questions in; a probability for every option out, kept in history.</p>
      <div class="playground">
        <div>
          <Form label="Decision" submit="Decide" onSubmit={submit}>
            <Loaded state={templates}>
              {(page) => (
                <Field
                  param="template"
                  label="Template"
                  hint="Fills in a template's questions; change them to ask your own."
                  control={(id, described) => (
                    <select
                      id={id}
                      aria-describedby={described}
                      value={chosen?.template.id ?? ''}
                      onChange={(e) => choose((e.target as HTMLSelectElement).value)}
                    >
                      <option value="">None: my own questions</option>
                      {page.data.map((t) => (
                        <option key={t.id} value={t.id}>
                          {t.name} ({t.id})
                        </option>
                      ))}
                    </select>
                  )}
                />
              )}
            </Loaded>
            {problem && <p role="alert">{problem}</p>}
            {chosen && !asTemplate && <p class="meta">The questions differ from {chosen.template.id}: they run as your own.</p>}
            {byVariables ? (
              <fieldset>
                <legend>Variables of {chosen.template.id}</legend>
                <SchemaFields fields={chosen.fields} values={variables} onChange={setVariables} prefix="variables" />
              </fieldset>
            ) : (
              <Field
                param="state"
                label="Situation"
                required
                control={(id, described, invalid) => (
                  <textarea
                    id={id}
                    rows={5}
                    aria-describedby={described}
                    aria-invalid={invalid}
                    value={state}
                    onInput={(e) => setState((e.target as HTMLTextAreaElement).value)}
                  />
                )}
              />
            )}
            <Field
              param="model"
              label="Model"
              control={(id, described, invalid) => (
                <select id={id} aria-describedby={described} aria-invalid={invalid} value={model} onChange={(e) => setModel((e.target as HTMLSelectElement).value)}>
                  <option value="">The default</option>
                  {(models.value?.data ?? []).map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.name}
                    </option>
                  ))}
                </select>
              )}
            />
            <QuestionsEditor drafts={drafts} onChange={setDrafts} />
          </Form>
        </div>
        <div aria-live="polite">{decision ? <DecisionResult decision={decision} /> : <p class="meta">The answers show here.</p>}</div>
      </div>
    </section>
  );
}

function DecisionResult(props: { decision: Decision }) {
  const d = props.decision;
  return (
    <section class="panel result" aria-labelledby="result-title">
      <h2 id="result-title">Decision</h2>
      <p>
        <a href={'/console' + studioLink('decision', d.id)} onClick={linkClick(studioLink('decision', d.id))}>
          {d.id}
        </a>{' '}
        · {d.model ?? 'no model'}
        {d.template ? ` · ${d.template.id}@${d.template.version}` : ''}
      </p>
      <p class={d.act ? 'acts' : 'review'} role="status">
        {d.status !== 'completed' ? `The decision ${d.status}: ${d.error?.message ?? ''}` : d.act ? 'Acts: every answer is certain enough.' : `Needs review: ${d.needs_review.join(', ')}.`}
      </p>
      {d.warnings.map((w) => (
        <p class="meta" key={w.code}>
          {w.message}
        </p>
      ))}
      {Object.entries(d.answers).map(([q, a]) => (
        <AnswerView key={q} question={q} answer={a} />
      ))}
      <p class="meta">
        Act threshold {percent(d.settings.act_threshold)} · temperature {d.settings.temperature}
        {d.timing ? ` · ${Math.round(d.timing.total_ms)} ms` : ''}
      </p>
    </section>
  );
}
