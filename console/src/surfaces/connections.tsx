// Connections tab: the configured gateways (from the registry and custom servers): enable or disable, the surfaces
// that may use them (client tags), their scope, delete; and a gateway to an MCP server of one's own.
import { useState } from 'preact/hooks';
import { api, type CredentialField, type CredentialSchema, type Gateway } from '../api';
import type { Signed } from '../app';
import { Field, Form, SchemaFields, TextField, check, fromCredentialSchema, initialValues, valuesToSend } from '../forms';
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
            <p>No gateway yet: add one from the Connectors tab, or a custom server below.</p>
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
      <CustomConnectionForm
        signed={props.signed}
        onAdded={(name) => {
          setNotice(`${name} added.`);
          gateways.reload();
        }}
      />
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

type AuthType = CredentialSchema['auth_type'];

/** The server's credential schema of a custom gateway, by auth type, then the form built from it. */
function CustomConnectionForm(props: { signed: Signed; onAdded: (name: string) => void }) {
  const schemas = useLoad(() => api.customCredentialSchemas());
  return (
    <Loaded state={schemas}>
      {(page) => (
        <CustomConnection
          signed={props.signed}
          credentials={Object.fromEntries(page.data.map((s) => [s.auth_type, s.fields])) as Record<AuthType, CredentialField[]>}
          onAdded={props.onAdded}
        />
      )}
    </Loaded>
  );
}

/** `POST /connectors/custom`: a gateway to an MCP server that is not in the registry, reached over HTTP. */
function CustomConnection(props: { signed: Signed; credentials: Record<AuthType, CredentialField[]>; onAdded: (name: string) => void }) {
  const empty = () => ({
    name: '',
    url: '',
    transport: '',
    auth: 'none' as AuthType,
    description: '',
    credentials: initialValues(fromCredentialSchema(props.credentials.none)),
    scope: { global: false, projects: props.signed.project ? [props.signed.project] : [] } as ScopeValue,
  });
  const [form, setForm] = useState(empty);
  // a new form after each gateway added, so that nothing typed for one (a header's secret) stays for the next
  const [round, setRound] = useState(0);
  const fields = fromCredentialSchema(props.credentials[form.auth]);
  const set = (change: Partial<ReturnType<typeof empty>>) => setForm({ ...form, ...change });
  const submit = async () => {
    const added = await api.addCustom({
      name: form.name,
      url: form.url,
      ...(form.transport ? { transport: form.transport } : {}),
      auth_type: form.auth,
      ...(form.description ? { description: form.description } : {}),
      credentials: valuesToSend(fields, form.credentials),
      scope: { enabled: true, global: form.scope.global, projects: form.scope.global ? [] : form.scope.projects },
    });
    setForm(empty());
    setRound(round + 1);
    props.onAdded(added.name);
  };
  return (
    <section aria-labelledby="custom-connection-title">
      <h2 id="custom-connection-title">Add a custom connection</h2>
      <p>An MCP server of your own, reached over Streamable HTTP or SSE; its address must pass the outbound policy.</p>
      <Form key={round} label="Add a custom connection" submit="Add connection" onSubmit={submit} idPrefix="custom" checkFirst={() => check(fields, form.credentials, 'credentials')}>
        <TextField param="name" label="Name" required value={form.name} onInput={(name) => set({ name })} />
        <TextField param="url" label="URL" type="url" required value={form.url} onInput={(url) => set({ url })} hint="The server's MCP endpoint, such as https://mcp.example.com/mcp." />
        <Field
          param="transport"
          label="Transport"
          control={(id, described, invalid) => (
            <select id={id} aria-describedby={described} aria-invalid={invalid} value={form.transport} onChange={(e) => set({ transport: (e.target as HTMLSelectElement).value })}>
              <option value="">Detect from the URL (SSE for an address ending in /sse)</option>
              <option value="streamable_http">Streamable HTTP</option>
              <option value="sse">SSE</option>
            </select>
          )}
        />
        <Field
          param="auth_type"
          label="Authorization"
          required
          control={(id, described, invalid) => (
            <select
              id={id}
              aria-describedby={described}
              aria-invalid={invalid}
              value={form.auth}
              onChange={(e) => {
                const auth = (e.target as HTMLSelectElement).value as AuthType;
                set({ auth, credentials: initialValues(fromCredentialSchema(props.credentials[auth])) });
              }}
            >
              <option value="none">None</option>
              <option value="headers">Headers (an API key or a bearer token)</option>
              <option value="oauth">OAuth</option>
            </select>
          )}
        />
        <TextField param="description" label="Description" value={form.description} onInput={(description) => set({ description })} />
        <fieldset>
          <legend>Credentials</legend>
          <SchemaFields fields={fields} values={form.credentials} onChange={(credentials) => set({ credentials })} prefix="credentials" />
        </fieldset>
        <ScopeFields projectsParam="scope.projects" projects={props.signed.projects} value={form.scope} onChange={(scope) => set({ scope })} allowGlobal />
      </Form>
    </section>
  );
}
