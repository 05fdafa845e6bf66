// Clusters page: where deployments run. `local` (this machine) and the Kubernetes clusters added from a kubeconfig,
// which is written once and never shown again; each cluster's health; delete.
import { useState } from 'preact/hooks';
import { clustersApi, type Cluster } from '../api';
import type { Signed } from '../app';
import { Field, Form, SchemaFields, check, valuesToSend, type FieldSpec, type Values } from '../forms';
import { ConfirmButton, Loaded, Notice, useLoad } from './common';
import { bytes } from './models-parts';

/** The body of POST /clusters beside the kubeconfig, as Clusters validates it. */
const NEW_CLUSTER: FieldSpec[] = [
  { name: 'name', label: 'Name', type: 'string', required: true, max_length: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._\\-]{0,99}$' },
  { name: 'context', label: 'Context', type: 'string', required: false, max_length: 253, description: "The kubeconfig's current-context when left empty." },
  {
    name: 'namespace',
    label: 'Namespace',
    type: 'string',
    required: false,
    max_length: 63,
    pattern: '^[a-z0-9](?:[a-z0-9\\-]{0,61}[a-z0-9])?$',
    description: "Where deployments go: the context's namespace, else default, when left empty.",
  },
];

export function Clusters(props: { signed: Signed }) {
  const admin = props.signed.principal.role === 'admin';
  const clusters = useLoad(() => clustersApi.list());
  const [notice, setNotice] = useState<string | null>(null);
  const [healthOf, setHealthOf] = useState<Cluster | null>(null);
  const remove = async (c: Cluster) => {
    try {
      await clustersApi.remove(c.id);
      setNotice(`${c.name} deleted.`);
      if (healthOf?.id === c.id) setHealthOf(null);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
    clusters.reload();
  };
  return (
    <section aria-labelledby="clusters-title">
      <h1 id="clusters-title">Clusters</h1>
      <p>Where deployments run: local is this machine; Kubernetes clusters run deployments as pods.</p>
      <Notice text={notice} />
      <Loaded state={clusters}>
        {(page) => (
          <table>
            <caption>Clusters</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">API server</th>
                <th scope="col">Namespace</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th>
                  <td>{c.type}</td>
                  <td>{c.server ?? '—'}</td>
                  <td>{c.namespace ?? '—'}</td>
                  <td class="actions">
                    <button type="button" aria-label={`Health of ${c.name}`} onClick={() => setHealthOf(c)}>
                      Health
                    </button>
                    {admin && c.type !== 'local' && <ConfirmButton label="Delete" confirm={`Delete ${c.name}`} onConfirm={() => remove(c)} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
      {healthOf && <Health key={healthOf.id} cluster={healthOf} />}
      {admin && (
        <NewCluster
          onAdded={(c) => {
            setNotice(`${c.name} added: its API server answered.`);
            clusters.reload();
          }}
        />
      )}
    </section>
  );
}

function Health(props: { cluster: Cluster }) {
  const c = props.cluster;
  const health = useLoad(() => clustersApi.health(c.id), [c.id]);
  return (
    <div class="panel" role="region" aria-label={`Health of ${c.name}`}>
      <h2>Health of {c.name}</h2>
      <button type="button" onClick={health.reload}>
        Check again
      </button>
      <Loaded state={health}>
        {(h) => (
          <>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <span class={'health ' + h.status}>{h.status}</span>
              </dd>
              <dt>Nodes</dt>
              <dd>{h.node_count}</dd>
              <dt>CPU</dt>
              <dd>{h.available_resources.cpu}</dd>
              <dt>Memory</dt>
              <dd>{bytes(h.available_resources.memory_bytes)}</dd>
              <dt>GPUs</dt>
              <dd>
                {h.available_resources.gpus.length === 0
                  ? 'none'
                  : h.available_resources.gpus.map((g) => `${g.name} (${bytes(g.memory_bytes)})`).join(', ')}
              </dd>
            </dl>
            {h.reasons.length > 0 && (
              <ul aria-label={`Why ${c.name} is ${h.status}`}>
                {h.reasons.map((r, i) => (
                  <li key={i}>{r}</li>
                ))}
              </ul>
            )}
          </>
        )}
      </Loaded>
    </div>
  );
}

/** A Kubernetes cluster: the kubeconfig is written here (pasted, masked, or read from a file) and never read back. */
function NewCluster(props: { onAdded: (c: Cluster) => void }) {
  const [values, setValues] = useState<Values>({});
  const [kubeconfig, setKubeconfig] = useState('');
  const submit = async () => {
    props.onAdded(await clustersApi.add({ ...valuesToSend(NEW_CLUSTER, values), kubeconfig }));
    setValues({});
    setKubeconfig('');
  };
  const problems = () => [
    ...check(NEW_CLUSTER, values, ''),
    ...(kubeconfig.trim() === '' ? [{ code: 'missing_field', param: 'kubeconfig', message: 'Kubeconfig is required.' }] : []),
  ];
  const readFile = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (file) setKubeconfig(await file.text());
  };
  return (
    <div class="panel">
      <h2>Add a Kubernetes cluster</h2>
      <p class="meta">The server checks the cluster at once: its API server must answer and let the kubeconfig list nodes.</p>
      <Form label="Add a Kubernetes cluster" submit="Add cluster" onSubmit={submit} checkFirst={problems}>
        <SchemaFields fields={NEW_CLUSTER.slice(0, 1)} values={values} onChange={setValues} prefix="" />
        <Field
          param="kubeconfig"
          label="Kubeconfig"
          required
          hint="Paste it or choose its file; it is sealed on the server and never shown again."
          control={(id, described, invalid) => (
            <>
              <textarea
                id={id}
                class="code masked"
                rows={5}
                spellcheck={false}
                autocomplete="off"
                aria-describedby={described}
                aria-invalid={invalid}
                value={kubeconfig}
                onInput={(e) => setKubeconfig((e.target as HTMLTextAreaElement).value)}
              />
              <label class="inline">
                Kubeconfig file <input type="file" onChange={readFile} />
              </label>
            </>
          )}
        />
        <SchemaFields fields={NEW_CLUSTER.slice(1)} values={values} onChange={setValues} prefix="" />
      </Form>
    </div>
  );
}
