// Pipelines: the list, a pipeline's page (its steps, start a run with its params, its runs, its schedules), the
// definition editor and a run's live page. Pipelines belong to no project: they are the admins' automation of
// models, deployments and clusters, so the page is the same whichever project the header shows.
import { useState } from 'preact/hooks';
import { ApiError, pipelinesApi, type Named, type Page, type Pipeline } from '../api';
import type { Signed } from '../app';
import { Form, SchemaFields, check, initialValues, valuesToSend, type RefOptions, type Values } from '../forms';
import { linkClick, navigate, usePath } from '../router';
import { ConfirmButton, Loaded, Notice, useLoad } from './common';
import { Status, runParamFields, time } from './pipelines-common';
import { PipelineEditor } from './pipelines-editor';
import { RunPage } from './pipelines-run';
import { Schedules } from './pipelines-schedules';

const RUN_STATUSES = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'];

/** The pipelines' routes: /pipelines, /pipelines/new, /pipelines/{id}, /pipelines/{id}/edit, /pipelines/runs/{id}. */
export function Pipelines(props: { signed: Signed }) {
  const parts = usePath().split('/').filter(Boolean).slice(1).map(decodeURIComponent);
  if (parts.length === 0) return <PipelineList />;
  if (parts[0] === 'new') return <Editing signed={props.signed} pipelineId={null} />;
  if (parts[0] === 'runs' && parts.length === 2) return <RunPage key={parts[1]} runId={parts[1]} />;
  if (parts.length === 2 && parts[1] === 'edit') return <Editing key={parts[0]} signed={props.signed} pipelineId={parts[0]} />;
  if (parts.length === 1) return <PipelineDetail key={parts[0]} pipelineId={parts[0]} />;
  return <p role="alert">There is no page here.</p>;
}

const href = (path: string) => ({ href: '/console' + path, onClick: linkClick(path) });

function PipelineList() {
  const pipelines = useLoad(() => pipelinesApi.list());
  const [notice, setNotice] = useState<string | null>(null);
  const remove = async (p: Pipeline) => {
    try {
      await pipelinesApi.remove(p.id);
      setNotice(`${p.name} deleted.`);
    } catch (e) {
      setNotice(e instanceof ApiError ? e.message : String(e));
    }
    pipelines.reload();
  };
  return (
    <section aria-labelledby="pipelines-title">
      <h1 id="pipelines-title">Pipelines</h1>
      <p>Steps that automate models, deployments and clusters, run on the server's durable engine, by hand or on a schedule.</p>
      <Notice text={notice} />
      <p>
        <a class="button" {...href('/pipelines/new')}>
          New pipeline
        </a>
      </p>
      <Loaded state={pipelines}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No pipeline yet.</p>
          ) : (
            <table>
              <caption>Pipelines</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Steps</th>
                  <th scope="col">Version</th>
                  <th scope="col">Changed</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((p) => (
                  <tr key={p.id}>
                    <th scope="row">
                      <a {...href(`/pipelines/${p.id}`)}>{p.name}</a>
                    </th>
                    <td>{p.description}</td>
                    <td>{p.step_count}</td>
                    <td>{p.version}</td>
                    <td>{time(p.updated_at)}</td>
                    <td class="actions">
                      <a class="button" aria-label={`Edit ${p.name}`} {...href(`/pipelines/${p.id}/edit`)}>
                        Edit
                      </a>{' '}
                      <ConfirmButton label="Delete" confirm={`Delete ${p.name}`} onConfirm={() => remove(p)} />
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

function Editing(props: { signed: Signed; pipelineId: string | null }) {
  const loaded = useLoad(async () => ({
    catalog: await pipelinesApi.actions(),
    pipeline: props.pipelineId ? await pipelinesApi.get(props.pipelineId) : null,
    refs: await refChoices(props.signed),
  }));
  return <Loaded state={loaded}>{(v) => <PipelineEditor catalog={v.catalog} pipeline={v.pipeline} refs={v.refs} />}</Loaded>;
}

/**
 * What the steps' `*_ref` params suggest (their fields take any text: a step often names what an earlier step made,
 * by a template). A list that cannot be read (deployments, without a current project) suggests nothing.
 */
async function refChoices(signed: Signed): Promise<RefOptions> {
  const choices = (page: PromiseSettledResult<Page<Named>>) =>
    page.status === 'fulfilled' ? page.value.data.map((x) => ({ value: x.id, label: x.name && x.name !== x.id ? `${x.name} (${x.id})` : x.id })) : undefined;
  const [models, clusters, credentials, deployments] = await Promise.allSettled([
    pipelinesApi.models(),
    pipelinesApi.clusters(),
    pipelinesApi.credentials(),
    signed.project ? pipelinesApi.deployments() : Promise.reject(new Error('no current project')),
  ]);
  return {
    model_ref: choices(models),
    cluster_ref: choices(clusters),
    credential_ref: choices(credentials),
    endpoint_ref: choices(deployments),
    project_ref: signed.projects.map((p) => ({ value: p.id, label: p.name })),
  };
}

function PipelineDetail(props: { pipelineId: string }) {
  const pipeline = useLoad(() => pipelinesApi.get(props.pipelineId), [props.pipelineId]);
  const [status, setStatus] = useState('');
  const runs = useLoad(() => pipelinesApi.runs(props.pipelineId, status), [props.pipelineId, status]);
  return (
    <Loaded state={pipeline}>
      {(p) => (
        <section aria-labelledby="pipeline-title">
          <p>
            <a {...href('/pipelines')}>All pipelines</a>
          </p>
          <h1 id="pipeline-title">{p.name}</h1>
          {p.description && <p>{p.description}</p>}
          <p class="meta">
            Version {p.version} · changed {time(p.updated_at)} ·{' '}
            <a aria-label={`Edit ${p.name}`} {...href(`/pipelines/${p.id}/edit`)}>
              Edit definition
            </a>
          </p>
          <ol class="step-summary" aria-label="Steps of the pipeline">
            {p.definition.steps.map((s) => (
              <li key={s.id}>
                <strong>{s.name || s.id}</strong> <span class="meta">{s.action}</span>
                {s.depends_on && s.depends_on.length > 0 && <span class="meta"> · after {s.depends_on.join(', ')}</span>}
              </li>
            ))}
          </ol>
          <StartRun pipeline={p} />
          <section aria-labelledby="runs-title">
            <h2 id="runs-title">Runs</h2>
            <label for="run-status-filter">Show runs</label>{' '}
            <select id="run-status-filter" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
              <option value="">in every status</option>
              {RUN_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>{' '}
            <button type="button" class="secondary" onClick={runs.reload}>
              Refresh
            </button>
            <Loaded state={runs}>
              {(page) =>
                page.data.length === 0 ? (
                  <p>No run yet.</p>
                ) : (
                  <table aria-labelledby="runs-title">
                    <thead>
                      <tr>
                        <th scope="col">Run</th>
                        <th scope="col">Status</th>
                        <th scope="col">Started by</th>
                        <th scope="col">Created</th>
                        <th scope="col">Finished</th>
                        <th scope="col">Error</th>
                      </tr>
                    </thead>
                    <tbody>
                      {page.data.map((r) => (
                        <tr key={r.id}>
                          <th scope="row">
                            <a {...href(`/pipelines/runs/${r.id}`)}>{r.id}</a>
                          </th>
                          <td>
                            <Status status={r.status} />
                          </td>
                          <td>{r.trigger.type}</td>
                          <td>{time(r.created_at)}</td>
                          <td>{time(r.finished_at)}</td>
                          <td>{r.error ? r.error.message : ''}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )
              }
            </Loaded>
          </section>
          <Schedules pipeline={p} onRunStarted={runs.reload} />
        </section>
      )}
    </Loaded>
  );
}

/** Starts a run with the params the pipeline declares (a form generated from them) and opens its page. */
function StartRun(props: { pipeline: Pipeline }) {
  const fields = runParamFields(props.pipeline.definition.parameters ?? []);
  const [params, setParams] = useState<Values>(initialValues(fields));
  const submit = async () => {
    const run = await pipelinesApi.startRun(props.pipeline.id, valuesToSend(fields, params));
    navigate(`/pipelines/runs/${run.id}`);
  };
  return (
    <div class="panel">
      <h2 id="start-run-title">Start a run</h2>
      <Form label="Start a run" submit="Start run" onSubmit={submit} checkFirst={() => check(fields, params, 'params')}>
        {fields.length === 0 ? <p class="hint">This pipeline takes no parameters.</p> : <SchemaFields fields={fields} values={params} onChange={setParams} prefix="params" />}
      </Form>
    </div>
  );
}
