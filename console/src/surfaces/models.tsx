// Models page: the registry (kind, format, size, status), registering a model from a folder, the model hub or a URL
// with its download's progress, loading and unloading, the running workers and a worker's log.
import { useEffect, useRef, useState } from 'preact/hooks';
import { follow, modelsApi, type Model, type ModelDownload, type ModelLoad } from '../api';
import type { Signed } from '../app';
import { Form, SchemaFields, check, initialValues, valuesToSend, type FieldSpec, type Values } from '../forms';
import { ConfirmButton, Loaded, Notice, useLoad } from './common';
import { Progress, bytes } from './models-parts';

/** The body of POST /models, as AddModel reads it. */
const NEW_MODEL: FieldSpec[] = [
  { name: 'model_source', label: 'Source', type: 'select', required: true, options: ['model_hub', 'url', 'local', 'cloud'], default: 'model_hub' },
  {
    name: 'model_uri',
    label: 'Model',
    type: 'string',
    required: true,
    max_length: 2048,
    description: 'owner/name[@revision] on the model hub, an https URL of a zip archive, a folder of this server, or an API base URL.',
  },
  { name: 'model_name', label: 'Display name', type: 'string', required: true, max_length: 200 },
  { name: 'engine', label: 'Engine', type: 'select', required: true, options: ['embedding', 'onnx-classifier', 'causal-lm', 'remote'], default: 'embedding' },
  { name: 'id', label: 'Id', type: 'string', required: false, max_length: 64, pattern: '^[a-z0-9][a-z0-9._\\-]{0,63}$', description: 'Made from the name when left empty.' },
  { name: 'sha256', label: 'SHA-256 of the archive', type: 'string', required: false, max_length: 64, visible_when: { param: 'model_source', equals: 'url' } },
  { name: 'remote_model', label: "The endpoint's model name", type: 'string', required: false, max_length: 200, visible_when: { param: 'model_source', equals: 'cloud' } },
  { name: 'api_key', label: 'API key', type: 'string', secret: true, required: false, max_length: 4096, visible_when: { param: 'model_source', equals: 'cloud' } },
];

/** What a model's event stream says while a download or a load runs. */
interface Watch {
  download: ModelDownload | null;
  load: ModelLoad | null;
}

const busy = (status: string) => status === 'downloading' || status === 'loading';

export function Models(props: { signed: Signed }) {
  const admin = props.signed.principal.role === 'admin';
  const models = useLoad(() => modelsApi.list());
  const [notice, setNotice] = useState<string | null>(null);
  const [watches, setWatches] = useState<Record<string, Watch>>({});
  const [logOf, setLogOf] = useState<string | null>(null);
  const stops = useRef(new Map<string, () => void>());
  useEffect(() => () => stops.current.forEach((stop) => stop()), []);

  /** Follows a model's download or load, keeping what its stream says until the work ends; then the list again. */
  const watch = (modelId: string) => {
    if (!admin || stops.current.has(modelId)) return;
    const update = (part: Partial<Watch>) =>
      setWatches((all) => ({ ...all, [modelId]: { ...(all[modelId] ?? { download: null, load: null }), ...part } }));
    const done = () => {
      stops.current.get(modelId)?.();
      stops.current.delete(modelId);
      models.reload();
    };
    const stop = follow(
      modelsApi.eventsPath(modelId),
      ({ event, data }) => {
        if (event === 'model') {
          const model = data as Model;
          if (!busy(model.status)) done(); // settled before the stream opened
          else if (model.download) update({ download: { status: model.status, error: null, ...model.download } });
        } else if (event === 'download') update({ download: data as ModelDownload });
        else if (event === 'load') update({ load: data as ModelLoad });
      },
      (error) => {
        stops.current.delete(modelId);
        if (error) setNotice(error.message);
        models.reload();
      },
    );
    stops.current.set(modelId, stop);
  };
  useEffect(() => {
    models.value?.data.filter((m) => busy(m.status)).forEach((m) => watch(m.id));
  }, [models.value]);

  const act = async (work: () => Promise<unknown>, done: string, modelId?: string) => {
    try {
      await work();
      setNotice(done);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
    models.reload();
    if (modelId) watch(modelId);
  };

  return (
    <section aria-labelledby="models-title">
      <h1 id="models-title">Models</h1>
      <p>The model registry: what decisions and deployments run on. Each loaded model runs in a worker process of its own.</p>
      <Notice text={notice} />
      <Loaded state={models}>
        {(page) => (
          <>
            <table>
              <caption>Model registry</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Format</th>
                  <th scope="col">Size</th>
                  <th scope="col">Status</th>
                  {admin && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {page.data.map((m) => (
                  <ModelRow key={m.id} model={m} watch={watches[m.id]} admin={admin} act={act} onLog={() => setLogOf(m.id)} />
                ))}
              </tbody>
            </table>
            <Workers models={page.data} watches={watches} admin={admin} onLog={setLogOf} />
          </>
        )}
      </Loaded>
      {logOf && <WorkerLog key={logOf} modelId={logOf} onClose={() => setLogOf(null)} />}
      {admin && (
        <NewModel
          onAdded={(m) => {
            setNotice(m.status === 'downloading' ? `${m.name} is downloading.` : `${m.name} added.`);
            models.reload();
            if (busy(m.status)) watch(m.id);
          }}
        />
      )}
    </section>
  );
}

function ModelRow(props: {
  model: Model;
  watch: Watch | undefined;
  admin: boolean;
  act: (work: () => Promise<unknown>, done: string, modelId?: string) => void;
  onLog: () => void;
}) {
  const m = props.model;
  const download = props.watch?.download;
  const status = m.status === 'downloading' && download ? download.status : m.status;
  const shown = m.status === 'downloading' ? (download ?? m.download ?? null) : null;
  return (
    <tr>
      <th scope="row">
        {m.name}
        <div class="meta">{m.id}</div>
      </th>
      <td>{m.engine}</td>
      <td>{m.format}</td>
      <td>{m.size_bytes > 0 ? bytes(m.size_bytes) : '—'}</td>
      <td>
        <span class="status">{status.replace(/_/g, ' ')}</span>
        {shown && shown.bytes_total !== undefined && (
          <Progress label={`Download of ${m.name}`} done={shown.bytes_done ?? 0} total={shown.bytes_total} text={`${bytes(shown.bytes_done ?? 0)} of ${bytes(shown.bytes_total)}`} />
        )}
        {m.error !== null && m.error !== undefined && <div class="error">{typeof m.error === 'string' ? m.error : JSON.stringify(m.error)}</div>}
      </td>
      {props.admin && (
        <td class="actions">
          {(m.status === 'not_downloaded' || (m.status === 'failed' && m.source !== 'local')) && (
            <button type="button" aria-label={`Download ${m.name}`} onClick={() => props.act(() => modelsApi.download(m.id), `${m.name} is downloading.`, m.id)}>
              Download
            </button>
          )}
          {m.status === 'downloading' && (
            <button type="button" aria-label={`Cancel the download of ${m.name}`} onClick={() => props.act(() => modelsApi.cancelDownload(m.id), `The download of ${m.name} stopped.`)}>
              Cancel
            </button>
          )}
          {(m.status === 'downloaded' || m.status === 'failed') && (
            <button type="button" aria-label={`Load ${m.name}`} onClick={() => props.act(() => modelsApi.load(m.id), `${m.name} is loading.`, m.id)}>
              Load
            </button>
          )}
          {(m.status === 'loaded' || m.status === 'loading') && (
            <button type="button" aria-label={`Unload ${m.name}`} onClick={() => props.act(() => modelsApi.eject(m.id), `${m.name} unloaded.`)}>
              Unload
            </button>
          )}
          <button type="button" aria-label={`Log of ${m.name}`} onClick={props.onLog}>
            Log
          </button>
          {/* a built-in model can be unloaded but never deleted (the server says 409 model_built_in) */}
          {m.source !== 'builtin' && (
            <ConfirmButton label="Delete" confirm={`Delete ${m.name}`} onConfirm={() => props.act(() => modelsApi.remove(m.id), `${m.name} deleted.`)} />
          )}
        </td>
      )}
    </tr>
  );
}

/** The models whose worker runs or starts; the studio's workers, not deployments' replicas. */
function Workers(props: { models: Model[]; watches: Record<string, Watch>; admin: boolean; onLog: (modelId: string) => void }) {
  const running = props.models.filter((m) => m.status === 'loaded' || m.status === 'loading');
  return (
    <>
      <h2 id="workers-title">Workers</h2>
      {running.length === 0 ? (
        <p>No model is loaded: a model loads on its first decision, or with Load.</p>
      ) : (
        <table aria-labelledby="workers-title">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col">Process</th>
              {props.admin && <th scope="col">Log</th>}
            </tr>
          </thead>
          <tbody>
            {running.map((m) => (
              <tr key={m.id}>
                <th scope="row">{m.name}</th>
                <td>{m.status}</td>
                <td>{m.worker_pid ?? props.watches[m.id]?.load?.worker_pid ?? '—'}</td>
                {props.admin && (
                  <td>
                    <button type="button" aria-label={`Worker log of ${m.name}`} onClick={() => props.onLog(m.id)}>
                      Log
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function WorkerLog(props: { modelId: string; onClose: () => void }) {
  const log = useLoad(() => modelsApi.logs(props.modelId, 200), [props.modelId]);
  return (
    <div class="panel" role="region" aria-label={`Log of ${props.modelId}`}>
      <h2>Log of {props.modelId}</h2>
      <button type="button" onClick={log.reload}>
        Refresh
      </button>{' '}
      <button type="button" class="link" onClick={props.onClose}>
        Close
      </button>
      <Loaded state={log}>
        {(value) => (value.lines.length === 0 ? <p>The log is empty.</p> : <pre class="log" tabIndex={0}>{value.lines.join('\n')}</pre>)}
      </Loaded>
    </div>
  );
}

function NewModel(props: { onAdded: (model: Model) => void }) {
  const [values, setValues] = useState<Values>(initialValues(NEW_MODEL));
  const submit = async () => {
    props.onAdded(await modelsApi.add(valuesToSend(NEW_MODEL, values)));
    setValues(initialValues(NEW_MODEL));
  };
  return (
    <div class="panel">
      <h2>Register a model</h2>
      <p class="meta">From the model hub or a URL the files download in the background; the list shows their progress.</p>
      <Form label="Register a model" submit="Register" onSubmit={submit} checkFirst={() => check(NEW_MODEL, values, '')}>
        <SchemaFields fields={NEW_MODEL} values={values} onChange={setValues} prefix="" />
      </Form>
    </div>
  );
}
