// Templates: the list, a new one, and one template's page: its definition to edit (each save a new version), its
// versions with a line diff of any two, its aliases, its test examples (add, import, split and tags) and the
// feedback its decisions got.
import { useState } from 'preact/hooks';
import { studio, type Example, type Problem, type Template, type TemplateVersion } from '../api';
import { Field, Form, TextField } from '../forms';
import { linkClick, navigate } from '../router';
import { ConfirmButton, Loaded, Notice, useLoad, when } from './common';
import { studioLink } from './studio';
import { lineDiff } from './studio-diff';
import { ExpectedFields, QuestionsEditor, answersOf, newDraft, toDrafts, toQuestions, type Draft, type Expected } from './studio-questions';

const link = (path: string) => ({ href: '/console' + path, onClick: linkClick(path) });

export function Templates() {
  const [origin, setOrigin] = useState('user');
  const [search, setSearch] = useState('');
  const list = useLoad(() => studio.templates({ origin: origin || undefined, q: search || undefined, limit: 100 }), [origin, search]);
  const [creating, setCreating] = useState(false);
  return (
    <section aria-labelledby="templates-title">
      <h1 id="templates-title">Templates</h1>
      <p>Versioned decision definitions: each saved change is a new version; aliases name versions.</p>
      <div class="filters">
        <div class="field">
          <label for="template-origin">Show</label>
          <select id="template-origin" value={origin} onChange={(e) => setOrigin((e.target as HTMLSelectElement).value)}>
            <option value="user">Your templates</option>
            <option value="builtin">Starter templates</option>
            <option value="">All</option>
          </select>
        </div>
        <div class="field">
          <label for="template-search">Search templates</label>
          <input id="template-search" type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        </div>
      </div>
      <button type="button" onClick={() => setCreating(true)}>
        New template
      </button>
      {creating && <DefinitionEditor onSaved={(t) => navigate(studioLink('template', t.id))} />}
      <Loaded state={list}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No template here yet.</p>
          ) : (
            <table>
              <caption>Templates</caption>
              <thead>
                <tr>
                  <th scope="col">Template</th>
                  <th scope="col">Name</th>
                  <th scope="col">Version</th>
                  <th scope="col">Aliases</th>
                  <th scope="col">Questions</th>
                  <th scope="col">Changed</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((t) => (
                  <tr key={t.id}>
                    <th scope="row">
                      <a {...link(studioLink('template', t.id))}>{t.id}</a>
                    </th>
                    <td>{t.name}</td>
                    <td>{t.version}</td>
                    <td>{aliasText(t)}</td>
                    <td>{t.summary?.questions.join(', ')}</td>
                    <td>{when(t.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </section>
  );
}

const aliasText = (t: Template) =>
  Object.entries(t.aliases)
    .filter(([a]) => a !== 'latest')
    .map(([a, v]) => `${a} → ${v}`)
    .join(', ') || '—';

const json = (value: unknown) => (value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0) ? '' : JSON.stringify(value, null, 2));

/** Text that must be JSON: parsed when sent; a parse failure is named at its field before anything is sent. */
function parseJson(text: string, param: string, problems: Problem[]) {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    problems.push({ code: 'invalid_json', param, message: `${param} is not valid JSON.` });
    return undefined;
  }
}

/** A new template (with its id), or a new version of one: the whole definition, saved on top of `base`. */
function DefinitionEditor(props: { base?: Template; onSaved: (t: Template) => void }) {
  const base = props.base;
  const [templateId, setTemplateId] = useState('');
  const [name, setName] = useState(base?.name ?? '');
  const [description, setDescription] = useState(base?.description ?? '');
  const [model, setModel] = useState(base?.model ?? '');
  const [state, setState] = useState(base?.state ?? '');
  const [variables, setVariables] = useState(json(base?.variables));
  const [settings, setSettings] = useState(json(base?.settings));
  const [note, setNote] = useState('');
  const [drafts, setDrafts] = useState<Draft[]>(base ? toDrafts(base.questions) : [newDraft(1)]);
  /** The definition to send, and what is wrong with its JSON fields (then nothing is sent). */
  const build = () => {
    const problems: Problem[] = [];
    const body: Record<string, unknown> = {
      name,
      description,
      model: model.trim() || null,
      state: state.trim() ? state : null,
      variables: parseJson(variables, 'variables', problems) ?? {},
      questions: toQuestions(drafts),
      settings: parseJson(settings, 'settings', problems) ?? {},
      note,
    };
    return { body, problems };
  };
  const submit = async () => {
    if (base) {
      props.onSaved(await studio.saveTemplate(base.id, { ...build().body, base_version: base.version }));
    } else {
      props.onSaved(await studio.createTemplate({ id: templateId, ...build().body }));
    }
  };
  const area = (param: string, label: string, value: string, set: (v: string) => void, hint: string) => (
    <Field
      param={param}
      label={label}
      hint={hint}
      control={(id, d, inv) => (
        <textarea id={id} class="code" rows={4} aria-describedby={d} aria-invalid={inv} value={value} onInput={(e) => set((e.target as HTMLTextAreaElement).value)} />
      )}
    />
  );
  return (
    <div class="panel">
      <h2>{base ? `Edit ${base.id} (a new version on top of ${base.version})` : 'New template'}</h2>
      <Form
        label={base ? `Edit ${base.id}` : 'New template'}
        submit={base ? 'Save version' : 'Create template'}
        onSubmit={submit}
        checkFirst={() => build().problems}
      >
        {!base && <TextField param="id" label="Template id" required value={templateId} onInput={setTemplateId} hint="Letters, digits, - and _; it cannot change later." />}
        <TextField param="name" label="Name" value={name} onInput={setName} />
        <TextField param="description" label="Description" value={description} onInput={setDescription} />
        <TextField param="model" label="Model" value={model} onInput={setModel} hint="Blank: the studio's default model." />
        {area('state', 'Situation template', state, setState, 'Blank: callers send the situation. With {{variable}} placeholders, callers send variables.')}
        {area('variables', 'Variables (JSON)', variables, setVariables, 'For example {"message": {"type": "string"}}.')}
        <QuestionsEditor drafts={drafts} onChange={setDrafts} />
        {area('settings', 'Settings (JSON)', settings, setSettings, 'For example {"act_threshold": 0.8}.')}
        <TextField param="note" label="Note" value={note} onInput={setNote} hint="What this version changes." />
      </Form>
    </div>
  );
}

const TABS = ['Definition', 'Versions', 'Examples', 'Feedback'] as const;
type Tab = (typeof TABS)[number];

export function TemplatePage(props: { templateId: string }) {
  const id = props.templateId;
  const template = useLoad(() => studio.template(id), [id]);
  const [tab, setTab] = useState<Tab>('Definition');
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <section aria-labelledby="template-title">
      <h1 id="template-title">Template {id}</h1>
      <p>
        <a {...link('/studio/templates')}>All templates</a>
      </p>
      <Notice text={notice} />
      <div class="tabs" role="group" aria-label="Parts of the template">
        {TABS.map((t) => (
          <button key={t} type="button" class={tab === t ? 'current' : 'link'} aria-pressed={tab === t} onClick={() => setTab(t)}>
            {t}
          </button>
        ))}
      </div>
      <Loaded state={template}>
        {(t) =>
          tab === 'Definition' ? (
            <DefinitionTab
              template={t}
              onSaved={(saved) => {
                setNotice(`Saved version ${saved.version} of ${saved.id}.`);
                template.reload();
              }}
            />
          ) : tab === 'Versions' ? (
            <Versions template={t} />
          ) : tab === 'Examples' ? (
            <Examples template={t} />
          ) : (
            <TemplateFeedback template={t} />
          )
        }
      </Loaded>
    </section>
  );
}

function DefinitionTab(props: { template: Template; onSaved: (t: Template) => void }) {
  const t = props.template;
  if (t.origin === 'builtin') return <Clone template={t} />;
  return (
    <>
      <p class="meta">
        Version {t.version}
        {t.note ? ` — ${t.note}` : ''} · {aliasText(t)}
      </p>
      <DefinitionEditor key={t.version} base={t} onSaved={props.onSaved} />
    </>
  );
}

/** Starter templates are read-only: they are cloned into one of your own. */
function Clone(props: { template: Template }) {
  const [cloneId, setCloneId] = useState('');
  return (
    <div class="panel">
      <p>Starter templates are read-only. Clone this one to change it.</p>
      <pre class="situation">{JSON.stringify(props.template.questions, null, 2)}</pre>
      <Form
        label="Clone template"
        submit="Clone"
        onSubmit={async () => {
          const t = await studio.createTemplate({ id: cloneId, from: { template: props.template.id } });
          navigate(studioLink('template', t.id));
        }}
      >
        <TextField param="id" label="New template id" required value={cloneId} onInput={setCloneId} />
      </Form>
    </div>
  );
}

/** The part of a version that defines it, as text lines stable enough to diff. */
const definitionText = (v: Record<string, unknown>) =>
  JSON.stringify({ model: v.model ?? null, state: v.state ?? null, variables: v.variables ?? {}, questions: v.questions ?? {}, settings: v.settings ?? {} }, null, 2);

function Versions(props: { template: Template }) {
  const t = props.template;
  const versions = useLoad(() => studio.versions(t.id), [t.id, t.version]);
  const [from, setFrom] = useState(Math.max(1, t.version - 1));
  const [to, setTo] = useState(t.version);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      <Notice text={notice} />
      <Loaded state={versions}>
        {(page) => (
          <table>
            <caption>Versions of {t.id}</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Note</th>
                <th scope="col">Changes</th>
                <th scope="col">Aliases</th>
                <th scope="col">Made</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((v) => (
                <tr key={v.version}>
                  <th scope="row">{v.version}</th>
                  <td>{v.note}</td>
                  <td>
                    {v.changes.class}: {v.changes.summary.join('; ')}
                  </td>
                  <td>{v.aliases.join(', ')}</td>
                  <td>{when(v.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
      {t.version > 1 && (
        <div class="panel">
          <h2>Compare two versions</h2>
          <div class="filters">
            {(
              [
                ['diff-from', 'Older version', from, setFrom],
                ['diff-to', 'Newer version', to, setTo],
              ] as const
            ).map(([domId, label, value, set]) => (
              <div class="field" key={domId}>
                <label for={domId}>{label}</label>
                <select id={domId} value={value} onChange={(e) => set(Number((e.target as HTMLSelectElement).value))}>
                  {Array.from({ length: t.version }, (_, i) => i + 1).map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
              </div>
            ))}
          </div>
          {from !== to && <VersionDiff key={`${from}-${to}`} templateId={t.id} from={from} to={to} />}
        </div>
      )}
      <Loaded state={versions}>
        {(page) => (
          <Aliases
            template={t}
            versions={page.data}
            onChange={(text) => {
              setNotice(text);
              versions.reload();
            }}
          />
        )}
      </Loaded>
    </>
  );
}

function VersionDiff(props: { templateId: string; from: number; to: number }) {
  const diff = useLoad(
    async () => {
      const [a, b, summary] = await Promise.all([
        studio.version(props.templateId, props.from),
        studio.version(props.templateId, props.to),
        studio.diff(props.templateId, props.from, props.to),
      ]);
      return { lines: lineDiff(definitionText(a as unknown as Record<string, unknown>), definitionText(b as unknown as Record<string, unknown>)), summary };
    },
    [props.templateId, props.from, props.to],
  );
  return (
    <Loaded state={diff}>
      {({ lines, summary }) => (
        <>
          <p>
            <strong>{summary.class}</strong>
            {summary.breaking_for_callers ? ' (breaks callers)' : ''}: {summary.summary.join('; ') || 'no change'}
          </p>
          <table class="diff" aria-label={`Diff of version ${props.from} and version ${props.to}`}>
            <thead>
              <tr>
                <th scope="col">{props.from}</th>
                <th scope="col">{props.to}</th>
                <th scope="col">Line</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l, i) => (
                <tr key={i} class={l.kind}>
                  <td class="num">{l.before ?? ''}</td>
                  <td class="num">{l.after ?? ''}</td>
                  <td>
                    <code>
                      <span class="mark">{l.kind === 'added' ? '+ ' : l.kind === 'removed' ? '- ' : '  '}</span>
                      {l.text}
                    </code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Loaded>
  );
}

/**
 * The aliases as the versions list has them: a template's own GET is revalidated by its ETag, its version number,
 * which an alias change leaves as it was.
 */
function Aliases(props: { template: Template; versions: TemplateVersion[]; onChange: (notice: string) => void }) {
  const t = props.template;
  const [alias, setAlias] = useState('');
  const [version, setVersion] = useState(t.version);
  const named = props.versions.flatMap((v) => v.aliases.filter((a) => a !== 'latest').map((a) => [a, v.version] as const));
  return (
    <div class="panel">
      <h2>Aliases</h2>
      {named.length === 0 ? (
        <p>No alias yet (latest always names version {t.version}).</p>
      ) : (
        <ul aria-label={`Aliases of ${t.id}`}>
          {named.map(([a, v]) => (
            <li key={a}>
              {a} → version {v}{' '}
              <ConfirmButton
                label={`Remove ${a}`}
                confirm={`Remove alias ${a}`}
                onConfirm={async () => {
                  await studio.deleteAlias(t.id, a);
                  props.onChange(`Alias ${a} removed.`);
                }}
              />
            </li>
          ))}
        </ul>
      )}
      <Form
        label="Set alias"
        submit="Set alias"
        onSubmit={async () => {
          await studio.setAlias(t.id, alias, version);
          props.onChange(`${alias} now names version ${version}.`);
        }}
      >
        <div class="filters">
          <TextField param="alias" label="Alias" required value={alias} onInput={setAlias} hint="For example prod or staging." />
          <Field
            param="version"
            label="Version"
            control={(id, d, inv) => (
              <select id={id} aria-describedby={d} aria-invalid={inv} value={version} onChange={(e) => setVersion(Number((e.target as HTMLSelectElement).value))}>
                {Array.from({ length: t.version }, (_, i) => t.version - i).map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            )}
          />
        </div>
      </Form>
    </div>
  );
}

const inputText = (e: Example) =>
  typeof e.state === 'string' ? e.state : e.variables ? JSON.stringify(e.variables) : JSON.stringify(e.state);

function Examples(props: { template: Template }) {
  const t = props.template;
  const [split, setSplit] = useState('');
  const [tag, setTag] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const examples = useLoad(() => studio.examples(t.id, { split: split || undefined, tag: tag.trim() || undefined }), [t.id, split, tag]);
  const act = async (work: Promise<unknown>, text: string) => {
    try {
      await work;
      setNotice(text);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
    examples.reload();
  };
  return (
    <>
      <Notice text={notice} />
      <div class="filters">
        <div class="field">
          <label for="example-split">Split</label>
          <select id="example-split" value={split} onChange={(e) => setSplit((e.target as HTMLSelectElement).value)}>
            <option value="">Both</option>
            <option value="test">test</option>
            <option value="calibration">calibration</option>
          </select>
        </div>
        <div class="field">
          <label for="example-tag">Tag</label>
          <input id="example-tag" type="search" value={tag} onInput={(e) => setTag((e.target as HTMLInputElement).value)} />
        </div>
      </div>
      <Loaded state={examples}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No example here yet.</p>
          ) : (
            <table>
              <caption>
                Examples of {t.id} ({page.data.length})
              </caption>
              <thead>
                <tr>
                  <th scope="col">Input</th>
                  <th scope="col">Expected</th>
                  <th scope="col">Split</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((e, i) => (
                  <tr key={e.id}>
                    <th scope="row">{inputText(e)}</th>
                    <td>
                      {Object.entries(e.expected)
                        .map(([q, v]) => `${q}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
                        .join('; ')}
                    </td>
                    <td>{e.split}</td>
                    <td>{e.tags.join(', ')}</td>
                    <td class="actions">
                      <button
                        type="button"
                        aria-label={`Move example ${i + 1} to ${e.split === 'test' ? 'calibration' : 'test'}`}
                        onClick={() => act(studio.updateExample(t.id, e.id, { split: e.split === 'test' ? 'calibration' : 'test' }), 'Example moved.')}
                      >
                        To {e.split === 'test' ? 'calibration' : 'test'}
                      </button>
                      <ConfirmButton label="Delete" confirm={`Delete example ${i + 1}`} onConfirm={() => act(studio.deleteExample(t.id, e.id), 'Example deleted.')} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      <AddExample template={t} onAdded={(text) => act(Promise.resolve(), text)} />
      <ImportExamples template={t} onDone={(text) => act(Promise.resolve(), text)} />
    </>
  );
}

function AddExample(props: { template: Template; onAdded: (notice: string) => void }) {
  const t = props.template;
  const byVariables = Object.keys(t.variables ?? {}).length > 0;
  const [input, setInput] = useState('');
  const [expected, setExpected] = useState<Expected>({});
  const [split, setSplit] = useState('test');
  const [tags, setTags] = useState('');
  const submit = async () => {
    const body: Record<string, unknown> = { expected, split, tags: tags.split(',').map((s) => s.trim()).filter(Boolean) };
    if (byVariables) body.variables = input.trim() ? JSON.parse(input) : {};
    else body.state = input;
    await studio.addExample(t.id, body);
    setInput('');
    setExpected({});
    props.onAdded('Example added.');
  };
  return (
    <div class="panel">
      <h2>Add an example</h2>
      <Form label="Add example" submit="Add example" onSubmit={submit}>
        <Field
          param={byVariables ? 'variables' : 'state'}
          label={byVariables ? 'Variables (JSON)' : 'Situation'}
          required
          control={(id, d, inv) => <textarea id={id} rows={3} aria-describedby={d} aria-invalid={inv} value={input} onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)} />}
        />
        <ExpectedFields answers={answersOf(t.questions)} value={expected} onChange={setExpected} prefix="expected" />
        <div class="filters">
          <Field
            param="split"
            label="Split of the example"
            control={(id, d, inv) => (
              <select id={id} aria-describedby={d} aria-invalid={inv} value={split} onChange={(e) => setSplit((e.target as HTMLSelectElement).value)}>
                <option value="test">test</option>
                <option value="calibration">calibration</option>
              </select>
            )}
          />
          <TextField param="tags" label="Tags" value={tags} onInput={setTags} hint="Separated by commas." />
        </div>
      </Form>
    </div>
  );
}

/** JSON lines (as the export writes them), pasted or read from a file; each line is checked on its own. */
function ImportExamples(props: { template: Template; onDone: (notice: string) => void }) {
  const [text, setText] = useState('');
  const [failed, setFailed] = useState<string[]>([]);
  const submit = async () => {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    const examples: unknown[] = [];
    const bad: string[] = [];
    lines.forEach((line, i) => {
      try {
        examples.push(JSON.parse(line));
      } catch {
        bad.push(`Line ${i + 1} is not JSON.`);
      }
    });
    if (bad.length > 0) {
      setFailed(bad);
      return;
    }
    const result = await studio.importExamples(props.template.id, examples);
    setFailed(result.failed.map((f) => `Line ${f.index + 1}: ${f.error.message}`));
    if (result.failed.length === 0) setText('');
    props.onDone(`Imported ${result.created} examples${result.failed.length ? `; ${result.failed.length} refused` : ''}.`);
  };
  return (
    <div class="panel">
      <h2>Import examples</h2>
      <Form label="Import examples" submit="Import" onSubmit={submit}>
        <Field
          param="examples"
          label="Examples (JSON lines)"
          hint='One example a line: {"state": "…", "expected": {"question": "answer"}, "split": "test", "tags": ["…"]}'
          control={(id, d, inv) => <textarea id={id} class="code" rows={5} aria-describedby={d} aria-invalid={inv} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />}
        />
        <div class="field">
          <label for="examples-file">Or read a .jsonl file</label>
          <input
            id="examples-file"
            type="file"
            accept=".jsonl,.json,.txt,application/json"
            onChange={async (e) => {
              const file = (e.target as HTMLInputElement).files?.[0];
              if (file) setText(await file.text());
            }}
          />
        </div>
      </Form>
      {failed.length > 0 && (
        <ul class="error" aria-label="Refused examples">
          {failed.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The feedback on this template's decisions: its labelled decisions, newest first, with each one's feedback. */
function TemplateFeedback(props: { template: Template }) {
  const t = props.template;
  const rows = useLoad(async () => {
    const labelled = await studio.decisions({ template: t.id, labelled: 'true', limit: 20 });
    const each = await Promise.all(labelled.data.map((d) => studio.feedback(d.id)));
    return each.flatMap((page) => page.data);
  }, [t.id]);
  return (
    <Loaded state={rows}>
      {(feedback) =>
        feedback.length === 0 ? (
          <p>No feedback on this template's decisions yet.</p>
        ) : (
          <table>
            <caption>Feedback on {t.id}</caption>
            <thead>
              <tr>
                <th scope="col">Decision</th>
                <th scope="col">Question</th>
                <th scope="col">Expected</th>
                <th scope="col">Answered</th>
                <th scope="col">Right</th>
                <th scope="col">Rating</th>
              </tr>
            </thead>
            <tbody>
              {feedback.map((f) => (
                <tr key={f.id}>
                  <th scope="row">
                    <a {...link(studioLink('decision', f.decision_id))}>{f.decision_id}</a>
                  </th>
                  <td>{f.question}</td>
                  <td>{String(f.expected ?? '—')}</td>
                  <td>{String(f.predicted ?? '—')}</td>
                  <td>{f.correct === null ? '—' : f.correct ? 'yes' : 'no'}</td>
                  <td>{f.rating === null ? '—' : f.rating > 0 ? 'good' : 'bad'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Loaded>
  );
}
