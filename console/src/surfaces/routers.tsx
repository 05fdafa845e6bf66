// Routers: the current project's routers (status, version, what they route to), create, delete; /routers/<id>
// opens one in the graph editor.
import { useState } from 'preact/hooks';
import { routerApi, type DagConfig, type Router } from '../api';
import type { Signed } from '../app';
import { Form, TextField } from '../forms';
import { linkClick, navigate, usePath } from '../router';
import { ConfirmButton, Loaded, Notice, useLoad, when } from './common';
import { RouterEditor } from './routers-editor';

export function Routers(props: { signed: Signed }) {
  const path = usePath();
  const opened = path.match(/^\/routers\/([^/]+)$/);
  if (opened) return <RouterEditor routerId={decodeURIComponent(opened[1])} signed={props.signed} />;
  return <RouterList signed={props.signed} />;
}

/** Where a router's requests can end: the endpoints, models and routers its steps name, or a canned answer. */
function destinations(dag: DagConfig): string[] {
  const out = new Set<string>();
  for (const step of dag.steps ?? []) {
    const p = step.params ?? {};
    const each = (list: unknown, key?: string) => {
      if (Array.isArray(list)) for (const item of list) out.add(String(key ? (item as Record<string, unknown>)?.[key] : item));
    };
    switch (step.action_type) {
      case 'single_endpoint':
        out.add(String(p.endpoint));
        break;
      case 'weighted_routing':
        each(p.weights, 'endpoint');
        break;
      case 'ordered_fallback':
        each(p.endpoints, 'endpoint');
        break;
      case 'least_busy':
      case 'latency_aware':
        each(p.endpoints);
        break;
      case 'local_model':
        out.add(String(p.model));
        break;
      case 'provider_models':
        out.add(`${p.provider} models`);
        break;
      case 'delegate':
        out.add(`router ${p.router}`);
        break;
      case 'canned_response':
        out.add('a canned answer');
        break;
    }
  }
  return Array.from(out);
}

function RouterList(props: { signed: Signed }) {
  const routers = useLoad(() => routerApi.list());
  const [notice, setNotice] = useState<string | null>(null);
  const remove = async (router: Router) => {
    try {
      await routerApi.remove(router.id);
      setNotice(`${router.name} deleted.`);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
    routers.reload();
  };
  return (
    <section aria-labelledby="routers-title">
      <h1 id="routers-title">Routers</h1>
      <p>Each router is a graph of steps that picks, per inference request, the endpoint that answers it.</p>
      <Notice text={notice} />
      <Loaded state={routers}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No router in this project yet.</p>
          ) : (
            <table>
              <caption>Routers of the current project</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Version</th>
                  <th scope="col">Steps</th>
                  <th scope="col">Routes to</th>
                  <th scope="col">Saved</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <a href={`/console/routers/${encodeURIComponent(r.id)}`} onClick={linkClick(`/routers/${encodeURIComponent(r.id)}`)}>
                        {r.name}
                      </a>
                    </th>
                    <td>
                      <span class={'status ' + r.status}>{r.status}</span>
                    </td>
                    <td>
                      <CurrentVersion routerId={r.id} />
                    </td>
                    <td>{r.step_count}</td>
                    <td>{destinations(r.dag_config).join(', ') || '—'}</td>
                    <td>{when(r.modified_at)}</td>
                    <td class="actions">
                      <ConfirmButton label="Delete" confirm={`Delete ${r.name}`} onConfirm={() => remove(r)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      <NewRouter signed={props.signed} />
    </section>
  );
}

/** The graph in use is the one after the last version kept (each save keeps the graph it replaced). */
function CurrentVersion(props: { routerId: string }) {
  const versions = useLoad(() => routerApi.versions(props.routerId, 1), [props.routerId]);
  return <>{versions.value ? (versions.value.data[0]?.version ?? 0) + 1 : '…'}</>;
}

function NewRouter(props: { signed: Signed }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const submit = async () => {
    const router = await routerApi.create({ name: name.trim(), description });
    navigate(`/routers/${encodeURIComponent(router.id)}`);
  };
  return (
    <div class="panel">
      <h2 id="new-router-title">New router</h2>
      {!props.signed.project && <p class="hint">Choose a project in the header: a router belongs to one.</p>}
      <Form label="New router" submit="Create router" onSubmit={submit}>
        <TextField param="name" label="Name" required value={name} onInput={setName} hint="What requests name as their model." />
        <TextField param="description" label="Description" value={description} onInput={setDescription} />
      </Form>
    </div>
  );
}
