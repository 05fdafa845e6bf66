// Connectors tab: browse the MCP registry and add a gateway from one of its servers.
import { useState } from 'preact/hooks';
import { api, type Connector } from '../api';
import type { Signed } from '../app';
import { Form, SchemaFields, TextField, check, fromCredentialSchema, initialValues, valuesToSend, type Values } from '../forms';
import { navigate } from '../router';
import { Loaded, ScopeFields, useLoad, type ScopeValue } from './common';

export function Connectors(props: { signed: Signed }) {
  const [search, setSearch] = useState('');
  const registry = useLoad(() => api.registry(search), [search]);
  const [chosen, setChosen] = useState<string | null>(null);
  return (
    <section aria-labelledby="connectors-title">
      <h1 id="connectors-title">Connectors</h1>
      <p>MCP servers of the registry. Add one as a gateway to share it with projects and their agents.</p>
      <label class="search">
        Search the registry{' '}
        <input type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
      </label>
      <Loaded state={registry}>
        {(page) => (
          <ul class="cards" aria-label="Registry">
            {page.data.map((c) => (
              <li key={c.id} class="card">
                <h2>{c.name}</h2>
                <p class="meta">
                  {c.provider} · {c.category} · auth: {c.auth_type}
                </p>
                <p>{c.description}</p>
                <button type="button" aria-label={`Add ${c.name}`} onClick={() => setChosen(c.id)}>
                  Add
                </button>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      {chosen && <AddGateway connectorId={chosen} signed={props.signed} onClose={() => setChosen(null)} />}
    </section>
  );
}

function AddGateway(props: { connectorId: string; signed: Signed; onClose: () => void }) {
  const connector = useLoad(() => api.connector(props.connectorId), [props.connectorId]);
  return (
    <div class="panel" role="dialog" aria-labelledby="add-gateway-title">
      <Loaded state={connector}>{(c) => <GatewayForm connector={c} signed={props.signed} onClose={props.onClose} />}</Loaded>
    </div>
  );
}

function GatewayForm(props: { connector: Connector; signed: Signed; onClose: () => void }) {
  const fields = fromCredentialSchema(props.connector.credential_schema ?? []);
  const [name, setName] = useState(props.connector.name);
  const [credentials, setCredentials] = useState<Values>(initialValues(fields));
  const [scope, setScope] = useState<ScopeValue>({
    global: false,
    projects: props.signed.project ? [props.signed.project] : [],
  });
  const submit = async () => {
    await api.addGateway({
      connector_id: props.connector.id,
      name,
      credentials: valuesToSend(fields, credentials),
      scope: { enabled: true, global: scope.global, projects: scope.global ? [] : scope.projects },
    });
    navigate('/connections');
  };
  return (
    <>
      <h2 id="add-gateway-title">Add {props.connector.name}</h2>
      <p class="meta">{props.connector.url}</p>
      <Form label={`Add ${props.connector.name}`} submit="Add gateway" onSubmit={submit} checkFirst={() => check(fields, credentials, 'credentials')}>
        <TextField param="name" label="Name" required value={name} onInput={setName} />
        {fields.length > 0 && (
          <fieldset>
            <legend>Credentials</legend>
            <SchemaFields fields={fields} values={credentials} onChange={setCredentials} prefix="credentials" />
          </fieldset>
        )}
        <ScopeFields projectsParam="scope.projects" projects={props.signed.projects} value={scope} onChange={setScope} allowGlobal />
      </Form>
      <button type="button" class="link" onClick={props.onClose}>
        Close
      </button>
    </>
  );
}
