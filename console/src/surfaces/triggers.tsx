// Triggers tab: the shared event connections (a provider's events, global or shared with projects), made from the
// providers' descriptors; the webhook address shown once at creation; each connection's delivery log.
import { useState } from 'preact/hooks';
import { api, type Descriptor, type EventConnection } from '../api';
import type { Signed } from '../app';
import { Field, Form, SchemaFields, TextField, check, fromDescriptor, valuesToSend, type Values } from '../forms';
import { ConfirmButton, Loaded, Notice, ScopeFields, projectNames, useLoad, when, type ScopeValue } from './common';

export function Triggers(props: { signed: Signed }) {
  const connections = useLoad(() => api.eventConnections());
  const descriptors = useLoad(() => api.descriptors());
  const [created, setCreated] = useState<EventConnection | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const remove = async (c: EventConnection) => {
    try {
      await api.deleteEventConnection(c.id);
      setNotice(`${c.name} deleted.`);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
    connections.reload();
  };
  return (
    <section aria-labelledby="triggers-title">
      <h1 id="triggers-title">Triggers</h1>
      <p>Shared event connections: a provider's webhooks, which start or route agent work.</p>
      <Notice text={notice} />
      <Loaded state={connections}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No event connection yet.</p>
          ) : (
            <table>
              <caption>Event connections</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Shared with</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((c) => (
                  <tr key={c.id}>
                    <th scope="row">{c.name}</th>
                    <td>{c.provider}</td>
                    <td>{c.global ? 'every project' : projectNames(c.project_ids, props.signed.projects)}</td>
                    <td class="actions">
                      <button type="button" aria-label={`Deliveries of ${c.name}`} onClick={() => setOpen(c.id)}>
                        Deliveries
                      </button>
                      <button type="button" aria-label={`Edit ${c.name}`} onClick={() => setEditing(c.id)}>
                        Edit
                      </button>
                      <ConfirmButton label="Delete" confirm={`Delete ${c.name}`} onConfirm={() => remove(c)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      {editing && connections.value && (
        <EditConnection
          key={editing}
          connection={connections.value.data.find((c) => c.id === editing)!}
          signed={props.signed}
          onDone={(text) => {
            setEditing(null);
            setNotice(text);
            connections.reload();
          }}
        />
      )}
      {created && <Created connection={created} onClose={() => setCreated(null)} />}
      {open && <DeliveryLog key={open} connectionId={open} name={connections.value?.data.find((c) => c.id === open)?.name ?? open} />}
      <Loaded state={descriptors}>
        {(page) => (
          <NewConnection
            descriptors={page.data}
            signed={props.signed}
            onCreated={(c) => {
              setCreated(c);
              connections.reload();
            }}
          />
        )}
      </Loaded>
    </section>
  );
}

/** The webhook address (and a generated signing secret) are answered once: shown here to copy now. */
function Created(props: { connection: EventConnection; onClose: () => void }) {
  const c = props.connection;
  return (
    <div class="panel" role="region" aria-label="New connection">
      <h2>{c.name} is ready</h2>
      <p>Give the provider this webhook address. It is shown only now.</p>
      <dl>
        <dt>Webhook URL</dt>
        <dd>
          <code>{c.webhook_url}</code>
        </dd>
        {c.signing_secret && (
          <>
            <dt>Signing secret</dt>
            <dd>
              <code>{c.signing_secret}</code>
            </dd>
          </>
        )}
      </dl>
      <button type="button" class="link" onClick={props.onClose}>
        Done
      </button>
    </div>
  );
}

function NewConnection(props: { descriptors: Descriptor[]; signed: Signed; onCreated: (c: EventConnection) => void }) {
  const admin = props.signed.principal.role === 'admin';
  const [provider, setProvider] = useState('');
  const [name, setName] = useState('');
  const [credentials, setCredentials] = useState<Values>({});
  const [scope, setScope] = useState<ScopeValue>({
    global: admin && !props.signed.project,
    projects: props.signed.project ? [props.signed.project] : [],
  });
  const descriptor = props.descriptors.find((d) => d.provider === provider);
  const fields = descriptor ? fromDescriptor(descriptor.credentials) : [];
  const submit = async () => {
    const body: Record<string, unknown> = { name, provider, credentials: valuesToSend(fields, credentials) };
    if (!scope.global) body.project_ids = scope.projects;
    props.onCreated(await api.addEventConnection(body));
    setName('');
    setCredentials({});
  };
  return (
    <div class="panel">
      <h2 id="new-connection-title">New event connection</h2>
      <Form label="New event connection" submit="Create connection" onSubmit={submit} checkFirst={() => check(fields, credentials, 'credentials')}>
        <Field
          param="provider"
          label="Provider"
          required
          control={(id, described, invalid) => (
            <select
              id={id}
              aria-describedby={described}
              aria-invalid={invalid}
              value={provider}
              onChange={(e) => {
                setProvider((e.target as HTMLSelectElement).value);
                setCredentials({});
              }}
            >
              <option value="">Choose a provider</option>
              {props.descriptors.map((d) => (
                <option key={d.provider} value={d.provider}>
                  {d.name}
                </option>
              ))}
            </select>
          )}
        />
        {descriptor && (
          <p class="meta">
            Events: {descriptor.event_types.slice(0, 6).map((t) => t.type).join(', ')}
            {descriptor.event_types.length > 6 ? ', …' : ''} ·{' '}
            <a href={descriptor.documentation_url} rel="noreferrer">
              documentation
            </a>
          </p>
        )}
        <TextField param="name" label="Name" required value={name} onInput={setName} />
        {fields.length > 0 && (
          <fieldset>
            <legend>Credentials</legend>
            <SchemaFields fields={fields} values={credentials} onChange={setCredentials} prefix="credentials" />
          </fieldset>
        )}
        <ScopeFields
          projectsParam="project_ids"
          projects={admin ? props.signed.projects : props.signed.projects.filter((p) => props.signed.principal.projects.includes(p.id))}
          value={scope}
          onChange={setScope}
          allowGlobal={admin}
        />
      </Form>
    </div>
  );
}

function DeliveryLog(props: { connectionId: string; name: string }) {
  const deliveries = useLoad(() => api.deliveries(props.connectionId), [props.connectionId]);
  return (
    <div class="panel">
      <h2 id="delivery-log-title">Deliveries of {props.name}</h2>
      <button type="button" onClick={deliveries.reload}>
        Refresh
      </button>
      <Loaded state={deliveries}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No delivery yet.</p>
          ) : (
            <table aria-labelledby="delivery-log-title">
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Event type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Signature</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((d) => (
                  <tr key={d.id}>
                    <td>{when(d.received_at)}</td>
                    <td>{d.type ?? '—'}</td>
                    <td>{d.status}</td>
                    <td>{d.signature.valid ? `valid (${d.signature.secret ?? 'current'} secret)` : `invalid: ${d.signature.detail ?? ''}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </div>
  );
}

/** Renames a connection, or replaces its share set (a global one stays global). */
function EditConnection(props: { connection: EventConnection; signed: Signed; onDone: (notice: string | null) => void }) {
  const c = props.connection;
  const [name, setName] = useState(c.name);
  const [scope, setScope] = useState<ScopeValue>({ global: c.global, projects: c.project_ids });
  const submit = async () => {
    const body: Record<string, unknown> = { name };
    if (!c.global) body.project_ids = scope.projects;
    const changed = await api.updateEventConnection(c.id, body);
    const removed = Number(changed.subscriptions_removed ?? 0);
    props.onDone(`${name} saved.` + (removed > 0 ? ` ${removed} trigger subscriptions removed.` : ''));
  };
  return (
    <div class="panel" role="dialog" aria-labelledby="edit-connection-title">
      <h2 id="edit-connection-title">Edit {c.name}</h2>
      <Form label={`Edit ${c.name}`} submit="Save" onSubmit={submit}>
        <TextField param="name" label="Name" required value={name} onInput={setName} />
        {!c.global && <ScopeFields projectsParam="project_ids" projects={props.signed.projects} value={scope} onChange={setScope} allowGlobal={false} />}
      </Form>
      <button type="button" class="link" onClick={() => props.onDone(null)}>
        Close
      </button>
    </div>
  );
}
