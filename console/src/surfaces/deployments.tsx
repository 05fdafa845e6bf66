// Deployments page: the current project's deployments (an admin without a project sees every one), a new
// deployment, and one deployment's page: its status and progress live from its event stream, its replicas, scale,
// rate limit, endpoint and delete.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, clustersApi, deploymentsApi, follow, modelsApi, type Deployment } from '../api';
import type { Signed } from '../app';
import { Form, SchemaFields, check, initialValues, valuesToSend, type FieldSpec, type RefOptions, type Values } from '../forms';
import { linkClick, navigate, usePath } from '../router';
import { ConfirmButton, Loaded, Notice, useLoad, when } from './common';
import { Progress } from './models-parts';

// The body of POST and PATCH /deployments, as DeploymentRoutes validates it: described once, drawn by forms.tsx.
const MAX_REPLICAS = 32;
const REPLICAS: FieldSpec = { name: 'replicas', label: 'Replicas', type: 'number', required: false, integer: true, min: 1, max: MAX_REPLICAS, default: 1 };
const DEPLOYMENT: FieldSpec[] = [
  {
    name: 'name',
    label: 'Name',
    type: 'string',
    required: true,
    max_length: 63,
    pattern: '^[a-z](?:[a-z0-9\\-]{0,61}[a-z0-9])?$',
    description: "Lowercase letters, digits and '-', starting with a letter: callers name it as their model.",
  },
  { name: 'model_id', label: 'Model', type: 'model_ref', required: true },
  { name: 'cluster_id', label: 'Cluster', type: 'cluster_ref', required: false, default: 'local' },
  REPLICAS,
];
const AUTO_SCALING: FieldSpec[] = [
  { name: 'min_replicas', label: 'Fewest replicas', type: 'number', required: true, integer: true, min: 1, max: MAX_REPLICAS },
  { name: 'max_replicas', label: 'Most replicas', type: 'number', required: true, integer: true, min: 1, max: MAX_REPLICAS },
  { name: 'target_in_flight', label: 'Requests in flight per replica', type: 'number', required: true, integer: true, min: 1, max: 1000 },
];
const RATE_LIMIT: FieldSpec[] = [
  { name: 'algorithm', label: 'Algorithm', type: 'select', required: true, options: ['token_bucket', 'fixed_window'], default: 'token_bucket' },
  { name: 'rate_limit', label: 'Requests', type: 'number', required: true, integer: true, min: 1, max: 100_000_000 },
  { name: 'time_window', label: 'Per', type: 'select', required: true, options: ['second', 'minute', 'hour'], default: 'minute' },
];

export function Deployments(props: { signed: Signed }) {
  const path = usePath();
  const deploymentId = decodeURIComponent(path.split('/')[2] ?? '');
  return deploymentId ? <DeploymentPage key={deploymentId} deploymentId={deploymentId} /> : <DeploymentList signed={props.signed} />;
}

const ready = (d: Deployment) => `${d.ready_replicas} of ${d.replicas}`;

function DeploymentList(props: { signed: Signed }) {
  const deployments = useLoad(() => deploymentsApi.list());
  return (
    <section aria-labelledby="deployments-title">
      <h1 id="deployments-title">Deployments</h1>
      <p>Models served under a name on a cluster, with replicas, autoscaling and a rate limit, on the OpenAI-compatible API.</p>
      <Loaded state={deployments}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No deployment yet.</p>
          ) : (
            <table>
              <caption>Deployments</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  <th scope="col">Cluster</th>
                  <th scope="col">Status</th>
                  <th scope="col">Ready replicas</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((d) => (
                  <tr key={d.id}>
                    <th scope="row">
                      <a href={`/console/deployments/${encodeURIComponent(d.id)}`} onClick={linkClick(`/deployments/${encodeURIComponent(d.id)}`)}>
                        {d.name}
                      </a>
                    </th>
                    <td>{d.model_id}</td>
                    <td>{d.cluster_id}</td>
                    <td>{d.status}</td>
                    <td>{ready(d)}</td>
                    <td>{when(d.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      <NewDeployment signed={props.signed} />
    </section>
  );
}

/** A group of fields sent only when its box is ticked (autoscaling, a rate limit). */
function Toggled(props: { legend: string; on: boolean; onToggle: (on: boolean) => void; children: ComponentChildren }) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <label class="inline">
        <input type="checkbox" checked={props.on} onChange={(e) => props.onToggle((e.target as HTMLInputElement).checked)} /> {props.legend}
      </label>
      {props.on && props.children}
    </fieldset>
  );
}

function NewDeployment(props: { signed: Signed }) {
  const models = useLoad(() => modelsApi.list());
  const clusters = useLoad(() => clustersApi.list());
  const [values, setValues] = useState<Values>(initialValues(DEPLOYMENT));
  const [scaling, setScaling] = useState<Values | null>(null);
  const [limit, setLimit] = useState<Values | null>(null);
  const refs: RefOptions = {
    model_ref: (models.value?.data ?? []).map((m) => ({ value: m.id, label: `${m.name} (${m.status.replace(/_/g, ' ')})` })),
    cluster_ref: (clusters.value?.data ?? []).map((c) => ({ value: c.id, label: c.name })),
  };
  const problems = () => [
    ...check(DEPLOYMENT, values, ''),
    ...(scaling ? check(AUTO_SCALING, scaling, 'auto_scaling') : []),
    ...(limit ? check(RATE_LIMIT, limit, 'rate_limit') : []),
  ];
  const submit = async () => {
    const body: Record<string, unknown> = valuesToSend(DEPLOYMENT, values);
    if (scaling) body.auto_scaling = valuesToSend(AUTO_SCALING, scaling);
    if (limit) body.rate_limit = valuesToSend(RATE_LIMIT, limit);
    const created = await deploymentsApi.create(body);
    navigate('/deployments/' + encodeURIComponent(created.id));
  };
  return (
    <div class="panel">
      <h2>New deployment</h2>
      {!props.signed.project && <p class="meta">A deployment belongs to a project: choose one in the header first.</p>}
      <Form label="New deployment" submit="Deploy" onSubmit={submit} checkFirst={problems}>
        <SchemaFields fields={DEPLOYMENT} values={values} onChange={setValues} prefix="" refs={refs} />
        <Toggled legend="Autoscaling" on={scaling !== null} onToggle={(on) => setScaling(on ? initialValues(AUTO_SCALING) : null)}>
          <SchemaFields fields={AUTO_SCALING} values={scaling ?? {}} onChange={setScaling} prefix="auto_scaling" />
        </Toggled>
        <Toggled legend="Rate limit" on={limit !== null} onToggle={(on) => setLimit(on ? initialValues(RATE_LIMIT) : null)}>
          <SchemaFields fields={RATE_LIMIT} values={limit ?? {}} onChange={setLimit} prefix="rate_limit" />
        </Toggled>
      </Form>
    </div>
  );
}

/** Reads the deployment (with its replicas) now and at each event of its stream, until its work settles. */
function useLiveDeployment(deploymentId: string) {
  const [deployment, setDeployment] = useState<Deployment | null>(null);
  const [gone, setGone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    const read = () =>
      deploymentsApi
        .get(deploymentId)
        .then(setDeployment)
        .catch((e) => {
          if (e instanceof ApiError && e.status === 404) setGone(true);
          else setError(e instanceof Error ? e.message : String(e));
        });
    read();
    return follow(
      deploymentsApi.eventsPath(deploymentId),
      ({ event, data }) => {
        if (event === 'deployment') {
          // the stream leaves the replicas out: they come with the deployment itself
          setDeployment((before) => ({ ...(data as Deployment), replicas_detail: before?.replicas_detail }));
          read();
        } else if (event === 'deleted') setGone(true);
      },
      (failure) => {
        if (failure?.status === 404) setGone(true);
        else if (failure) setError(failure.message);
        else read();
      },
    );
  }, [deploymentId, round]);
  /** Follows again: after a change, whose work the stream that settled did not see. */
  const again = () => setRound((n) => n + 1);
  return { deployment, gone, error, again, set: setDeployment };
}

function DeploymentPage(props: { deploymentId: string }) {
  const live = useLiveDeployment(props.deploymentId);
  const [notice, setNotice] = useState<string | null>(null);
  const d = live.deployment;
  const back = (
    <p>
      <a href="/console/deployments" onClick={linkClick('/deployments')}>
        All deployments
      </a>
    </p>
  );
  if (live.gone)
    return (
      <section aria-labelledby="deployment-title">
        <h1 id="deployment-title">Deployment</h1>
        <p role="status">This deployment does not exist (any more).</p>
        {back}
      </section>
    );
  if (!d) return live.error ? <p role="alert">{live.error}</p> : <p class="loading">Loading…</p>;
  const changed = (next: Deployment, text: string) => {
    live.set(next);
    setNotice(text);
    live.again();
  };
  return (
    <section aria-labelledby="deployment-title">
      {back}
      <h1 id="deployment-title">Deployment {d.name}</h1>
      <Notice text={notice} />
      {live.error && <p role="alert">{live.error}</p>}
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class="status" aria-live="polite" data-status={d.status}>
            {d.status}
          </span>
          {d.error && <div class="error">{d.error}</div>}
        </dd>
        <dt>Progress</dt>
        <dd>
          <Progress label={`Progress of ${d.name}`} done={d.progress} total={100} text={`${d.progress}% · ${ready(d)} replicas ready`} />
        </dd>
        <dt>Model</dt>
        <dd>{d.model_id}</dd>
        <dt>Cluster</dt>
        <dd>{d.cluster_id}</dd>
        <dt>Endpoint</dt>
        <dd>
          {d.endpoint_url ? <code>{d.endpoint_url}</code> : '—'} <span class="meta">(callers name the model {d.name})</span>
        </dd>
        <dt>Autoscaling</dt>
        <dd>{d.auto_scaling ? `${d.auto_scaling.min_replicas} to ${d.auto_scaling.max_replicas} replicas, ${d.auto_scaling.target_in_flight} in flight each` : 'off'}</dd>
        <dt>Rate limit</dt>
        <dd>{d.rate_limit ? `${d.rate_limit.rate_limit} per ${d.rate_limit.time_window} (${d.rate_limit.algorithm.replace('_', ' ')})` : 'none'}</dd>
      </dl>
      <Replicas deployment={d} />
      <button type="button" onClick={live.again}>
        Refresh
      </button>
      <Scale deployment={d} onChanged={changed} />
      <Limit deployment={d} onChanged={changed} />
      <Delete deployment={d} />
    </section>
  );
}

function Replicas(props: { deployment: Deployment }) {
  const d = props.deployment;
  if (d.replicas_detail === undefined)
    return <p class="meta">{d.cluster_id === 'local' ? 'Another server runs these replicas.' : 'The pods run on the cluster; their count is above.'}</p>;
  return (
    <table>
      <caption>Replicas of {d.name}</caption>
      <thead>
        <tr>
          <th scope="col">Replica</th>
          <th scope="col">Process</th>
          <th scope="col">Status</th>
          <th scope="col">In flight</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {d.replicas_detail.map((r) => (
          <tr key={r.index}>
            <th scope="row">{r.index + 1}</th>
            <td>{r.pid > 0 ? r.pid : '—'}</td>
            <td>{r.status}</td>
            <td>{r.in_flight}</td>
            <td>{r.error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Scale(props: { deployment: Deployment; onChanged: (d: Deployment, notice: string) => void }) {
  const d = props.deployment;
  const [values, setValues] = useState<Values>({ replicas: d.replicas });
  const fields = [{ ...REPLICAS, required: true }];
  const submit = async () => {
    const next = await deploymentsApi.change(d.id, valuesToSend(fields, values));
    props.onChanged(next, `Scaling ${d.name} to ${next.replicas} replicas.`);
  };
  return (
    <div class="panel">
      <h2>Scale</h2>
      <Form label={`Scale ${d.name}`} submit="Scale" onSubmit={submit} checkFirst={() => check(fields, values, '')}>
        <SchemaFields fields={fields} values={values} onChange={setValues} prefix="" />
      </Form>
    </div>
  );
}

function Limit(props: { deployment: Deployment; onChanged: (d: Deployment, notice: string) => void }) {
  const d = props.deployment;
  const [values, setValues] = useState<Values>(d.rate_limit ? { ...d.rate_limit } : initialValues(RATE_LIMIT));
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async () => {
    const next = await deploymentsApi.change(d.id, { rate_limit: valuesToSend(RATE_LIMIT, values) });
    props.onChanged(next, `${d.name} takes ${values.rate_limit} requests per ${values.time_window}.`);
  };
  const remove = async () => {
    try {
      props.onChanged(await deploymentsApi.change(d.id, { rate_limit: null }), `${d.name} has no rate limit.`);
      setProblem(null);
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div class="panel">
      <h2>Rate limit</h2>
      <Form label={`Rate limit of ${d.name}`} submit="Save rate limit" onSubmit={submit} checkFirst={() => check(RATE_LIMIT, values, 'rate_limit')}>
        <SchemaFields fields={RATE_LIMIT} values={values} onChange={setValues} prefix="rate_limit" />
      </Form>
      {d.rate_limit && (
        <button type="button" class="link" onClick={remove}>
          Remove the rate limit
        </button>
      )}
      {problem && <p role="alert">{problem}</p>}
    </div>
  );
}

/** Delete, confirmed in place; a deployment routers use is refused (409 in_use) unless forced, which says so. */
function Delete(props: { deployment: Deployment }) {
  const d = props.deployment;
  const [refused, setRefused] = useState<{ message: string; inUse: boolean } | null>(null);
  const remove = async (force: boolean) => {
    try {
      await deploymentsApi.remove(d.id, force);
      navigate('/deployments');
    } catch (e) {
      setRefused({ message: e instanceof Error ? e.message : String(e), inUse: e instanceof ApiError && e.code === 'in_use' });
    }
  };
  return (
    <div class="panel">
      <h2>Delete</h2>
      <p class="meta">Stops the replicas (or removes the cluster's objects); callers then get 404.</p>
      <ConfirmButton label={`Delete ${d.name}`} confirm={`Yes, delete ${d.name}`} onConfirm={() => remove(false)} />
      {refused && (
        <div class="problems" role="alert">
          <p>{refused.message}</p>
          {refused.inUse && <ConfirmButton label="Delete anyway" confirm="Deactivate those routers and delete" onConfirm={() => remove(true)} />}
        </div>
      )}
    </div>
  );
}
