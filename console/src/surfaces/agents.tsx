// Agent Connections panel: for one agent (a prompt), the gateways it may use: authorize one with OAuth, fetch and
// list its tools, attach a set of them, detach the gateway.
import { useState } from 'preact/hooks';
import { api, type AgentConnection, type Gateway } from '../api';
import type { Signed } from '../app';
import { Form, TextField } from '../forms';
import { navigate, usePath } from '../router';
import { Loaded, Notice, useLoad } from './common';

/** Where the authorization server sends the browser back, and what the page was doing when it left. */
export const OAUTH_RETURN = '/oauth/return';
export const PENDING_KEY = 'arbor.oauth.pending';

export function AgentConnections(props: { signed: Signed }) {
  const path = usePath();
  const agent = decodeURIComponent(path.split('/')[2] ?? '');
  const [draft, setDraft] = useState(agent);
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agent connections</h1>
      <Form label="Choose an agent" submit="Open" onSubmit={async () => navigate('/agents/' + encodeURIComponent(draft.trim()))}>
        <TextField param="prompt_id" label="Agent (prompt id)" required value={draft} onInput={setDraft} />
      </Form>
      {agent && <Agent key={agent + (props.signed.project ?? '')} agent={agent} />}
    </section>
  );
}

function Agent(props: { agent: string }) {
  const attached = useLoad(() => api.agentConnections(props.agent), [props.agent]);
  const available = useLoad(() => api.available());
  const [notice, setNotice] = useState<string | null>(null);
  const detach = async (gatewayId: string, name: string) => {
    try {
      await api.detach(props.agent, gatewayId);
      setNotice(`${name} detached.`);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
    attached.reload();
  };
  // the attached tools are the agent's whole set for a gateway: one fewer is the set attached again without it
  const removeTool = async (connection: AgentConnection, toolId: string, name: string) => {
    const rest = connection.tools.filter((t) => t.id !== toolId).map((t) => t.id);
    try {
      await (rest.length > 0 ? api.attach(props.agent, connection.gateway_id, rest) : api.detach(props.agent, connection.gateway_id));
      setNotice(`${name} removed from ${props.agent}.`);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
    attached.reload();
  };
  return (
    <>
      <h2>Agent {props.agent}</h2>
      <Notice text={notice} />
      <h3 id="attached-title">Attached</h3>
      <Loaded state={attached}>
        {(page) =>
          page.data.length === 0 ? (
            <p>Nothing attached to this agent.</p>
          ) : (
            <ul aria-labelledby="attached-title" class="attached">
              {page.data.map((c) => (
                <li key={c.gateway_id}>
                  <strong>{c.gateway_name ?? c.gateway_id}</strong>{' '}
                  <button type="button" onClick={() => detach(c.gateway_id, c.gateway_name ?? c.gateway_id)}>
                    Detach {c.gateway_name ?? c.gateway_id}
                  </button>
                  <ul aria-label={`Tools of ${c.gateway_name ?? c.gateway_id} attached`}>
                    {c.tools.map((t) => (
                      <li key={t.id}>
                        <span>{t.name}</span>{' '}
                        <button type="button" class="link" onClick={() => removeTool(c, t.id, t.name)}>
                          Remove {t.name}
                        </button>
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      <h3>Available gateways</h3>
      <Loaded state={available}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No gateway is shared with this project.</p>
          ) : (
            page.data.map((g) => (
              <GatewayTools
                key={g.id}
                agent={props.agent}
                gateway={g}
                onAttached={(text) => {
                  setNotice(text);
                  attached.reload();
                }}
              />
            ))
          )
        }
      </Loaded>
    </>
  );
}

function GatewayTools(props: { agent: string; gateway: Gateway; onAttached: (notice: string) => void }) {
  const g = props.gateway;
  const tools = useLoad(() => api.tools(g.id), [g.id]);
  const status = useLoad(() => (g.auth_type === 'oauth' ? api.oauthStatus(g.id) : Promise.resolve(null)), [g.id]);
  const [chosen, setChosen] = useState<string[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const authorize = async () => {
    try {
      const start = await api.startOAuth(g.id, location.origin + '/console' + OAUTH_RETURN);
      sessionStorage.setItem(PENDING_KEY, JSON.stringify({ back: '/agents/' + encodeURIComponent(props.agent), gateway: g.name }));
      location.assign(start.authorization_url);
    } catch (e) {
      setMessage(e instanceof Error ? e.message : String(e));
    }
  };
  const fetchTools = async () => {
    try {
      const fetched = await api.fetchTools(g.id);
      setMessage(`Fetched ${fetched.total} tools.`);
    } catch (e) {
      setMessage(e instanceof Error ? e.message : String(e));
    }
    tools.reload();
  };
  const attach = async () => {
    await api.attach(props.agent, g.id, chosen);
    props.onAttached(`${chosen.length} tools of ${g.name} attached.`);
    setChosen([]);
  };
  const authorized = status.value === null || status.value.status === 'authorized' || status.value.status === 'not_required';
  return (
    <article class="gateway" aria-labelledby={'gw-' + g.id}>
      <h4 id={'gw-' + g.id}>{g.name}</h4>
      {g.auth_type === 'oauth' && (
        <p>
          Authorization: <span class="status">{status.value?.status ?? '…'}</span>{' '}
          <button type="button" onClick={authorize}>
            {authorized ? `Authorize ${g.name} again` : `Authorize ${g.name}`}
          </button>
        </p>
      )}
      <button type="button" onClick={fetchTools}>
        Fetch tools of {g.name}
      </button>
      <p class="notice" role="status">
        {message ?? ''}
      </p>
      <Loaded state={tools}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No tools fetched yet.</p>
          ) : (
            <Form label={`Attach tools of ${g.name}`} submit={`Attach to ${props.agent}`} onSubmit={attach}>
              <fieldset class="tools">
                <legend>Tools of {g.name}</legend>
                {page.data.map((t) => (
                  <div class="tool" key={t.id}>
                    <input
                      type="checkbox"
                      id={'tool-' + t.id}
                      aria-describedby={t.description ? 'tool-about-' + t.id : undefined}
                      checked={chosen.includes(t.id)}
                      onChange={(e) => setChosen((e.target as HTMLInputElement).checked ? [...chosen, t.id] : chosen.filter((x) => x !== t.id))}
                    />{' '}
                    <label for={'tool-' + t.id}>{t.name}</label>
                    {t.description ? (
                      <span class="meta" id={'tool-about-' + t.id}>
                        {' '}
                        — {t.description}
                      </span>
                    ) : null}
                  </div>
                ))}
              </fieldset>
            </Form>
          )
        }
      </Loaded>
    </article>
  );
}
