// One router's editor: its graph (add a step from the action catalog, select one to edit, connect, remove), each
// step's form generated from the catalog's parameters, the server's check of the whole graph as the user edits, save
// (the graph it replaces becomes a version), activation, the versions, and dag_config as JSON.
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ApiError,
  routerApi,
  type RouterActionCatalog,
  type DagConfig,
  type Page,
  type Problem,
  type Router,
  type RouterAction,
  type RouterState,
  type RouterVersion,
  type Step,
} from '../api';
import type { Signed } from '../app';
import { Field, Form, SchemaFields, TextField, fromActionParams, initialValues, valuesToSend, type RefOptions } from '../forms';
import { linkClick } from '../router';
import { ConfirmButton, Loaded, Notice, useLoad, when } from './common';
import { Graph, connect, disconnect, edgesOf, freshId, removeStep, renameStep, setDependsOn, setNextSteps } from './routers-graph';

const LIVE_CHECK_MS = 400;
const STATES: RouterState[] = ['active', 'draft', 'inactive'];

export function RouterEditor(props: { routerId: string; signed: Signed }) {
  const catalog = useLoad(() => routerApi.actions());
  const router = useLoad(() => routerApi.get(props.routerId), [props.routerId]);
  const refs = useRefOptions(props.signed);
  return (
    <section aria-labelledby="router-title">
      <p>
        <a href="/console/routers" onClick={linkClick('/routers')}>
          ← All routers
        </a>
      </p>
      <Loaded state={catalog}>
        {(actions) => <Loaded state={router}>{(r) => <Editor key={r.id} router={r} catalog={actions} refs={refs} />}</Loaded>}
      </Loaded>
    </section>
  );
}

/** What `*_ref` params may name, by type; a kind this token may not list is typed in instead. */
function useRefOptions(signed: Signed): RefOptions {
  const [refs, setRefs] = useState<RefOptions>({});
  useEffect(() => {
    const listed = <T,>(result: PromiseSettledResult<{ data: T[] }>) => (result.status === 'fulfilled' ? result.value.data : null);
    Promise.allSettled([routerApi.models(), routerApi.deployments(), routerApi.credentials(), routerApi.clusters()]).then(
      ([models, deployments, credentials, clusters]) => {
        const out: RefOptions = {
          project_ref: signed.projects.map((p) => ({ value: p.id, label: p.name })),
        };
        const allModels = listed(models);
        if (allModels) {
          // a provider is named by the API URL its cloud models are added from (or a known name, typed in)
          const urls = new Set(allModels.filter((m) => m.source === 'cloud' && m.uri).map((m) => m.uri!));
          out.provider_ref = [...urls].map((url) => ({ value: url, label: url }));
          const cloud = allModels.filter((m) => m.source === 'cloud').map((m) => ({ value: m.id, label: m.name === m.id ? m.id : `${m.name} (${m.id})` }));
          out.model_ref = allModels.map((m) => ({ value: m.id, label: m.name === m.id ? m.id : `${m.name} (${m.id})` }));
          out.cloud_model_ref = cloud;
          const running = listed(deployments) ?? [];
          // an endpoint is a cloud model or a running deployment, each by its id
          out.endpoint_ref = [...cloud, ...running.map((d) => ({ value: d.id, label: `deployment ${d.name} (${d.id})` }))];
        }
        const stored = listed(credentials);
        if (stored) out.credential_ref = stored.map((c) => ({ value: c.name, label: c.name }));
        const known = listed(clusters);
        if (known) out.cluster_ref = known.map((c) => ({ value: c.id, label: c.name }));
        setRefs(out);
      },
    );
  }, [signed.projects]);
  return refs;
}

const stepAt = (i: number) => `dag_config.steps[${i}]`;

/** The step a problem's param points into (`dag_config.steps[2].params.x` → the third step). */
function stepOfProblem(dag: DagConfig, problem: Problem): string | null {
  const match = problem.param?.match(/^dag_config\.steps\[(\d+)\]/);
  return match ? (dag.steps[Number(match[1])]?.step_id ?? null) : null;
}

/**
 * The server's check of the whole graph (POST /routers/validate) as a save in `status` would run it, a moment after
 * the last edit: each step's params and the graph itself (a step no way reaches, a way that ends without an
 * endpoint, a cycle), at the params a save names. A draft's gaps come back as warnings, shown the same way.
 */
function useLiveCheck(dag: DagConfig, status: RouterState): Problem[] {
  const [checked, setChecked] = useState<{ dag: DagConfig; status: RouterState; problems: Problem[] } | null>(null);
  const round = useRef(0);
  useEffect(() => {
    const mine = ++round.current;
    const timer = setTimeout(async () => {
      let found: Problem[];
      try {
        const answer = await routerApi.validateGraph(dag, status);
        found = [...answer.errors, ...answer.warnings];
      } catch (error) {
        found = error instanceof ApiError ? error.details : [{ code: 'error', param: null, message: String(error) }];
      }
      if (mine === round.current) setChecked({ dag, status, problems: found });
    }, LIVE_CHECK_MS);
    return () => clearTimeout(timer);
  }, [dag, status]);
  // what a check of an earlier graph found may no longer hold: it is not shown while the graph is checked again
  return checked !== null && checked.dag === dag && checked.status === status ? checked.problems : NOT_CHECKED_YET;
}

const NOT_CHECKED_YET: Problem[] = [];

function Editor(props: { router: Router; catalog: RouterActionCatalog; refs: RefOptions }) {
  const [router, setRouter] = useState(props.router);
  const [dag, setDag] = useState<DagConfig>({ ...props.router.dag_config, steps: props.router.dag_config.steps ?? [] });
  const [name, setName] = useState(router.name);
  const [description, setDescription] = useState(router.description);
  const [saveAs, setSaveAs] = useState<RouterState>('active');
  const [selected, setSelected] = useState<string | null>(dag.steps[0]?.step_id ?? null);
  const [connecting, setConnecting] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [saved, setSaved] = useState<Problem[]>([]);
  const versions = useLoad(() => routerApi.versions(router.id), [router.id, router.modified_at]);
  const live = useLiveCheck(dag, saveAs);
  const actions = props.catalog.data;

  const problemCounts = new Map<string, number>();
  for (const p of [...live, ...saved]) {
    const step = stepOfProblem(dag, p);
    if (step) problemCounts.set(step, (problemCounts.get(step) ?? 0) + 1);
  }

  const edit = (next: DagConfig) => {
    setDag(next);
    setSaved([]); // what the last save said is about the graph before this edit
  };
  const pick = (stepId: string) => {
    if (connecting && connecting !== stepId) {
      edit(connect(dag, connecting, stepId));
      setNotice(`${connecting} → ${stepId} connected.`);
      setConnecting(null);
    } else {
      setConnecting(null);
    }
    setSelected(stepId);
  };
  const addStep = (type: string) => {
    const action = actions.find((a) => a.type === type)!;
    const fields = fromActionParams(action.params);
    const step: Step = {
      step_id: freshId(dag, type),
      action_type: type,
      name: action.name,
      params: valuesToSend(fields, initialValues(fields)),
      depends_on: [],
      next_steps: [],
    };
    edit({ ...dag, steps: [...dag.steps, step], entry_step: dag.entry_step || step.step_id });
    setSelected(step.step_id);
    setNotice(`Step ${step.step_id} added.`);
  };
  const body = () => ({ name, description, status: saveAs, dag_config: dag });
  const save = async () => {
    try {
      const answer = await routerApi.save(router.id, body());
      setRouter(answer);
      setSaved(answer.warnings);
      setNotice(`Saved: ${answer.name} is ${answer.status}.` + (answer.warnings.length ? ` ${answer.warnings.length} warnings.` : ''));
    } catch (error) {
      if (error instanceof ApiError) setSaved(error.details);
      throw error;
    }
  };
  const setStatus = async (status: RouterState) => {
    try {
      const answer = await routerApi.setStatus(router.id, status);
      setRouter(answer);
      setNotice(`${answer.name} is ${answer.status}.`);
    } catch (error) {
      if (error instanceof ApiError) setSaved(error.details);
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  const index = dag.steps.findIndex((s) => s.step_id === selected);
  const step = index >= 0 ? dag.steps[index] : null;

  return (
    <>
      <h1 id="router-title">Router {router.name}</h1>
      <p class="router-state">
        Status: <strong class={'status ' + router.status}>{router.status}</strong>
        {versions.value && <> · version {(versions.value.data[0]?.version ?? 0) + 1}</>} · saved {when(router.modified_at)}{' '}
        {router.status === 'active' ? (
          <button type="button" class="danger" onClick={() => setStatus('inactive')}>
            Deactivate
          </button>
        ) : (
          <button type="button" onClick={() => setStatus('active')}>
            Activate
          </button>
        )}
      </p>
      <Notice text={notice} />
      <AddStep actions={props.catalog} onAdd={addStep} />
      <div class="graph-pane">
        {dag.steps.length === 0 ? (
          <p>No step yet: add one from the action catalog.</p>
        ) : (
          <Graph dag={dag} actions={actions} problemCounts={problemCounts} selected={selected} connecting={connecting} onPick={pick} />
        )}
        {connecting && (
          <p class="connecting" role="status">
            Choose the step that follows {connecting}.{' '}
            <button type="button" class="link" onClick={() => setConnecting(null)}>
              Cancel connecting
            </button>
          </p>
        )}
      </div>
      <EdgeList dag={dag} onRemove={(from, to) => edit(disconnect(dag, from, to))} />
      <Form label={`Router ${router.name}`} submit="Save" onSubmit={save} live={live}>
        <div class="router-fields">
          <TextField param="name" label="Name" required value={name} onInput={setName} />
          <TextField param="description" label="Description" value={description} onInput={setDescription} />
          <Field
            param="dag_config.entry_step"
            label="Entry step"
            required
            control={(id, described, invalid) => (
              <select
                id={id}
                aria-describedby={described}
                aria-invalid={invalid}
                value={dag.entry_step ?? ''}
                onChange={(e) => edit({ ...dag, entry_step: (e.target as HTMLSelectElement).value || undefined })}
              >
                <option value="">—</option>
                {dag.steps.map((s) => (
                  <option key={s.step_id} value={s.step_id}>
                    {s.step_id}
                  </option>
                ))}
              </select>
            )}
          />
        </div>
        {step && (
          <StepFields
            key={index + ':' + step.action_type}
            dag={dag}
            index={index}
            action={actions.find((a) => a.type === step.action_type)}
            refs={props.refs}
            onChange={edit}
            onRenamed={setSelected}
            onConnect={() => setConnecting(step.step_id)}
            onRemove={() => {
              edit(removeStep(dag, step.step_id));
              setNotice(`Step ${step.step_id} removed.`);
              setSelected(null);
            }}
          />
        )}
        <Field
          param="status"
          label="Save as"
          hint="An active router serves requests and must be complete; a draft or inactive one may be unfinished."
          control={(id, described) => (
            <select id={id} aria-describedby={described} value={saveAs} onChange={(e) => setSaveAs((e.target as HTMLSelectElement).value as RouterState)}>
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        />
      </Form>
      <JsonView dag={dag} onApply={edit} />
      <Versions state={versions} onLoad={(d) => edit({ ...d, steps: d.steps ?? [] })} />
    </>
  );
}

function AddStep(props: { actions: RouterActionCatalog; onAdd: (type: string) => void }) {
  const [type, setType] = useState(props.actions.data[0]?.type ?? '');
  const chosen = props.actions.data.find((a) => a.type === type);
  return (
    <div class="add-step" role="group" aria-label="Add a step">
      <label for="add-step-type">
        Action of a new step
      </label>{' '}
      <select id="add-step-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
        {props.actions.categories.map((c) => (
          <optgroup key={c.id} label={c.name}>
            {c.actions.map((t) => (
              <option key={t} value={t}>
                {props.actions.data.find((a) => a.type === t)?.name ?? t}
              </option>
            ))}
          </optgroup>
        ))}
      </select>{' '}
      <button type="button" onClick={() => props.onAdd(type)}>
        Add step
      </button>
      {chosen && <p class="hint">{chosen.description}</p>}
    </div>
  );
}

function StepFields(props: {
  dag: DagConfig;
  index: number;
  action: RouterAction | undefined;
  refs: RefOptions;
  onChange: (dag: DagConfig) => void;
  onRenamed: (stepId: string) => void;
  onConnect: () => void;
  onRemove: () => void;
}) {
  const { dag, index } = props;
  const step = dag.steps[index];
  const at = stepAt(index);
  const fields = fromActionParams(props.action?.params ?? []).map((f) => ({ ...f, type: PICKED[`${step.action_type}.${f.name}`] ?? f.type }));
  const [id, setId] = useState(step.step_id);
  const others = dag.steps.filter((s) => s.step_id !== step.step_id).map((s) => s.step_id);
  const targets = useRoutersOf(step.action_type === DELEGATE ? step.params?.project : undefined);
  const refs: RefOptions = { ...props.refs, step_ref: others.map((o) => ({ value: o, label: o })), router_ref: targets };
  const next = edgesOf(dag).filter((e) => e.kind === 'next');
  const update = (part: Partial<Step>) =>
    props.onChange({ ...dag, steps: dag.steps.map((s, i) => (i === index ? { ...s, ...part } : s)) });
  const rename = (value: string) => {
    setId(value);
    // an id another step has, or none, stays in this field until it is one the graph can take
    if (value && !others.includes(value)) {
      props.onChange(renameStep(dag, step.step_id, value));
      props.onRenamed(value);
    }
  };
  const linkList = (param: string, label: string, chosen: string[], set: (ids: string[]) => void) => (
    <Field
      param={`${at}.${param}`}
      label={label}
      control={(fieldId, described, invalid) => (
        <select
          id={fieldId}
          multiple
          aria-describedby={described}
          aria-invalid={invalid}
          onChange={(e) => set(Array.from((e.target as HTMLSelectElement).selectedOptions, (o) => o.value))}
        >
          {others.map((o) => (
            <option key={o} value={o} selected={chosen.includes(o)}>
              {o}
            </option>
          ))}
        </select>
      )}
    />
  );
  return (
    <fieldset class="step-fields">
      <legend>
        Step {step.step_id} · {props.action?.name ?? step.action_type}
      </legend>
      {props.action && <p class="hint">{props.action.description}</p>}
      <TextField param={`${at}.step_id`} label="Step id" required value={id} onInput={rename} />
      <TextField param={`${at}.name`} label="Step name" value={step.name ?? ''} onInput={(value) => update({ name: value })} />
      {linkList('depends_on', 'Depends on', next.filter((e) => e.to === step.step_id).map((e) => e.from), (ids) =>
        props.onChange(setDependsOn(dag, step.step_id, ids)),
      )}
      {!props.action?.terminal &&
        linkList('next_steps', 'Next steps', next.filter((e) => e.from === step.step_id).map((e) => e.to), (ids) =>
          props.onChange(setNextSteps(dag, step.step_id, ids)),
        )}
      <Field
        param={`${at}.conditions`}
        label="Conditions"
        hint="One expression a line, over request (request.model, request.headers, request.tokens, request.tags)."
        control={(fieldId, described, invalid) => (
          <textarea
            id={fieldId}
            class="code"
            rows={2}
            aria-describedby={described}
            aria-invalid={invalid}
            value={(step.conditions ?? []).join('\n')}
            onInput={(e) =>
              update({
                conditions: (e.target as HTMLTextAreaElement).value
                  .split('\n')
                  .map((line) => line.trim())
                  .filter(Boolean),
              })
            }
          />
        )}
      />
      <SchemaFields
        fields={fields}
        values={step.params ?? {}}
        onChange={(values) => update({ params: valuesToSend(fields, values) })}
        prefix={`${at}.params`}
        refs={refs}
      />
      <p class="step-actions">
        {!props.action?.terminal && (
          <button type="button" onClick={props.onConnect}>
            Connect {step.step_id} to…
          </button>
        )}{' '}
        <ConfirmButton label={`Remove step ${step.step_id}`} confirm={`Remove ${step.step_id} and its links`} onConfirm={props.onRemove} />
      </p>
    </fieldset>
  );
}

const DELEGATE = 'delegate';
/** Params the catalog types as plain strings that name a step of this graph or a router: picked, not typed. */
const PICKED: Record<string, string> = { 'delegate.router': 'router_ref', 'decide.fallback_step': 'step_ref' };

/** The routers of the project a delegate step names (by id; the server takes a name too); none until one is named. */
function useRoutersOf(project: unknown) {
  const [routers, setRouters] = useState<{ value: string; label: string }[] | undefined>(undefined);
  useEffect(() => {
    setRouters(undefined);
    if (typeof project !== 'string' || project === '') return;
    let current = true;
    routerApi
      .listIn(project)
      .then((page) => current && setRouters(page.data.map((r) => ({ value: r.id, label: `${r.name} (${r.status})` }))))
      .catch(() => current && setRouters(undefined));
    return () => {
      current = false;
    };
  }, [project]);
  return routers;
}

function EdgeList(props: { dag: DagConfig; onRemove: (from: string, to: string) => void }) {
  const edges = edgesOf(props.dag);
  if (edges.length === 0) return null;
  return (
    <ul class="edges" aria-label="Links between steps">
      {edges.map((e) => (
        <li key={`${e.from}->${e.to}`}>
          {e.from} → {e.to}{' '}
          {e.kind === 'next' ? (
            <button type="button" class="link" aria-label={`Remove the link from ${e.from} to ${e.to}`} onClick={() => props.onRemove(e.from, e.to)}>
              Remove
            </button>
          ) : (
            <span class="meta">(a branch of {e.from}: edit it in its params)</span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** dag_config as JSON: follows the editor until edited here; Apply puts the edited text back into the editor. */
function JsonView(props: { dag: DagConfig; onApply: (dag: DagConfig) => void }) {
  const shown = JSON.stringify(props.dag, null, 2);
  const [draft, setDraft] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const apply = () => {
    try {
      const parsed = JSON.parse(draft ?? shown);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('dag_config must be a JSON object.');
      props.onApply({ ...parsed, steps: Array.isArray(parsed.steps) ? parsed.steps : [] });
      setDraft(null);
      setProblem(null);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <details class="json-view">
      <summary>dag_config as JSON</summary>
      <label for="dag-json">dag_config (JSON)</label>
      <textarea
        id="dag-json"
        class="code"
        rows={16}
        aria-invalid={problem !== null}
        aria-describedby={problem ? 'dag-json-error' : undefined}
        value={draft ?? shown}
        onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
      />
      {problem && (
        <p class="error" id="dag-json-error" role="alert">
          {problem}
        </p>
      )}
      <p>
        <button type="button" onClick={apply} disabled={draft === null}>
          Apply JSON
        </button>{' '}
        <button type="button" class="link" onClick={() => setDraft(null)} disabled={draft === null}>
          Discard JSON edits
        </button>
      </p>
    </details>
  );
}

function Versions(props: {
  state: { value: Page<RouterVersion> | null; error: string | null };
  onLoad: (dag: DagConfig) => void;
}) {
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Earlier versions</h2>
      <Loaded state={props.state}>
        {(page) =>
          page.data.length === 0 ? (
            <p>None yet: each save keeps the graph it replaces here.</p>
          ) : (
            <table>
              <caption>Graphs earlier saves replaced, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Steps</th>
                  <th scope="col">Saved</th>
                  <th scope="col">Replaced</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((v) => (
                  <tr key={v.version}>
                    <th scope="row">{v.version}</th>
                    <td>{v.step_count}</td>
                    <td>{when(v.saved_at)}</td>
                    <td>{when(v.replaced_at)}</td>
                    <td>
                      <button type="button" onClick={() => props.onLoad(v.dag_config)}>
                        Load version {v.version} into the editor
                      </button>
                    </td>
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
