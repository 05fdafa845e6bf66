// Connections tab: the configured gateways (from the registry and custom servers): enable or disable, the surfaces
// that may use them (client tags), their scope, delete.
import { useState } from 'preact/hooks';
import { api, type Gateway } from '../api';
import type { Signed } from '../app';
import { Form } from '../forms';
import { ConfirmButton, Loaded, Notice, ScopeFields, projectNames, useLoad, type ScopeValue } from './common';

const CLIENTS = ['studio', 'prompt'];

export function Connections(props: { signed: Signed }) {
  const gateways = useLoad(() => api.configured());
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const act = async (work: Promise<unknown>, done: string) => {
    try {
      await work;
      setNotice(done);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
    gateways.reload();
  };
  return (
    <section aria-labelledby="connections-title">
      <h1 id="connections-title">Connections</h1>
      <Notice text={notice} />
      <Loaded state={gateways}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No gateway yet: add one from the Connectors tab.</p>
          ) : (
            <table>
              <caption>Configured gateways</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Server</th>
                  <th scope="col">Authorization</th>
                  <th scope="col">Shared with</th>
                  <th scope="col">Used by</th>
                  <th scope="col">Status</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((g) => (
                  <tr key={g.id}>
                    <th scope="row">{g.name}</th>
                    <td>
                      {g.source === 'custom' ? 'custom · ' : ''}
                      {g.url ?? g.transport}
                    </td>
                    <td>{g.authorization}</td>
                    <td>{g.scope.global ? 'every project' : projectNames(g.scope.projects, props.signed.projects) || 'no project yet'}</td>
                    <td>{g.clients.join(', ')}</td>
                    <td>{g.scope.enabled ? 'enabled' : 'disabled'}</td>
                    <td class="actions">
                      <button
                        type="button"
                        aria-label={`${g.scope.enabled ? 'Disable' : 'Enable'} ${g.name}`}
                        onClick={() => act(api.toggle(g.id, !g.scope.enabled), `${g.name} ${g.scope.enabled ? 'disabled' : 'enabled'}.`)}
                      >
                        {g.scope.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <button type="button" aria-label={`Edit ${g.name}`} onClick={() => setEditing(g.id)}>
                        Edit
                      </button>
                      <ConfirmButton label="Delete" confirm={`Delete ${g.name}`} onConfirm={() => act(api.deleteGateway(g.id), `${g.name} deleted.`)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      {editing && gateways.value && (
        <EditGateway
          key={editing}
          gateway={gateways.value.data.find((g) => g.id === editing)!}
          signed={props.signed}
          onDone={(text) => {
            setEditing(null);
            setNotice(text);
            gateways.reload();
          }}
        />
      )}
    </section>
  );
}

function EditGateway(props: { gateway: Gateway; signed: Signed; onDone: (notice: string | null) => void }) {
  const g = props.gateway;
  const [scope, setScope] = useState<ScopeValue>({ global: g.scope.global, projects: g.scope.projects });
  const [clients, setClients] = useState<string[]>(g.clients);
  const submit = async () => {
    await api.updateGateway(g.id, {
      scope: { enabled: g.scope.enabled, global: scope.global, projects: scope.global ? [] : scope.projects },
      clients,
    });
    props.onDone(`${g.name} saved.`);
  };
  return (
    <div class="panel" role="dialog" aria-labelledby="edit-gateway-title">
      <h2 id="edit-gateway-title">Edit {g.name}</h2>
      <Form label={`Edit ${g.name}`} submit="Save" onSubmit={submit}>
        <fieldset>
          <legend>Used by</legend>
          {CLIENTS.map((c) => (
            <label class="inline" key={c}>
              <input
                type="checkbox"
                checked={clients.includes(c)}
                onChange={(e) => setClients((e.target as HTMLInputElement).checked ? [...clients, c] : clients.filter((x) => x !== c))}
              />{' '}
              {c}
            </label>
          ))}
        </fieldset>
        <ScopeFields projectsParam="scope.projects" projects={props.signed.projects} value={scope} onChange={setScope} allowGlobal />
      </Form>
      <button type="button" class="link" onClick={() => props.onDone(null)}>
        Close
      </button>
    </div>
  );
}
