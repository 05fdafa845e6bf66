// The console's shell: sign-in, the header with the current project, the navigation (only what the token may do)
// and the page of the current route.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, session, type Principal, type Project } from './api';
import { Form, TextField } from './forms';
import { linkClick, navigate, usePath } from './router';
import { AgentConnections } from './surfaces/agents';
import { Connections } from './surfaces/connections';
import { Connectors } from './surfaces/connectors';
import { OAuthReturn } from './surfaces/oauth-return';
import { Pipelines } from './surfaces/pipelines';
import { Studio } from './surfaces/studio';
import { Routers } from './surfaces/routers';
import { Triggers } from './surfaces/triggers';
import { Clusters } from './surfaces/clusters';
import { Deployments } from './surfaces/deployments';
import { Models } from './surfaces/models';

export interface Signed {
  principal: Principal;
  projects: Project[];
  project: string | null;
}

interface Page {
  path: string;
  title: string;
  adminOnly: boolean;
  render: (signed: Signed) => ComponentChildren;
}

/** What members may do follows the API: gateways and the registry are the admins'; the rest is per project. */
const PAGES: Page[] = [
  { path: '/connectors', title: 'Connectors', adminOnly: true, render: (s) => <Connectors signed={s} /> },
  { path: '/connections', title: 'Connections', adminOnly: true, render: (s) => <Connections signed={s} /> },
  { path: '/triggers', title: 'Triggers', adminOnly: false, render: (s) => <Triggers signed={s} /> },
  { path: '/agents', title: 'Agent connections', adminOnly: false, render: (s) => <AgentConnections signed={s} /> },
  // members read the registry and the clusters and act on their projects' deployments; the pages offer admins more
  { path: '/models', title: 'Models', adminOnly: false, render: (s) => <Models signed={s} /> },
  { path: '/deployments', title: 'Deployments', adminOnly: false, render: (s) => <Deployments signed={s} /> },
  { path: '/clusters', title: 'Clusters', adminOnly: false, render: (s) => <Clusters signed={s} /> },
  { path: '/pipelines', title: 'Pipelines', adminOnly: true, render: (s) => <Pipelines signed={s} /> },
  { path: '/routers', title: 'Routers', adminOnly: false, render: (s) => <Routers signed={s} /> },
  { path: '/studio', title: 'Studio', adminOnly: false, render: () => <Studio /> },
];

export const offered = (principal: Principal) => PAGES.filter((p) => principal.role === 'admin' || !p.adminOnly);

async function load(): Promise<Signed> {
  const principal = await api.me();
  const projects = (await api.projects()).data;
  let project = session.project();
  if (!project || !projects.some((p) => p.id === project)) {
    // a member always acts within one of its projects; an admin may act in none
    project = principal.role === 'member' && projects.length > 0 ? projects[0].id : null;
    session.chooseProject(project);
  }
  return { principal, projects, project };
}

export function App() {
  const path = usePath();
  const [signed, setSigned] = useState<Signed | null>(null);
  const [starting, setStarting] = useState(session.token() !== null);

  useEffect(() => {
    if (session.token() === null) return;
    load()
      .then(setSigned)
      .catch(() => session.signOut())
      .finally(() => setStarting(false));
  }, []);

  if (starting) return <p class="loading">Loading…</p>;
  if (!signed) return <SignIn onSignedIn={setSigned} />;
  return <Shell path={path} signed={signed} onChange={setSigned} />;
}

function Shell(props: { path: string; signed: Signed; onChange: (signed: Signed | null) => void }) {
  const { path, signed } = props;
  const pages = offered(signed.principal);
  const signOut = () => {
    session.signOut();
    props.onChange(null);
    navigate('/', true);
  };
  const chooseProject = (project: string) => {
    session.chooseProject(project || null);
    props.onChange({ ...signed, project: project || null });
  };
  const landing = path === '/' && pages.length > 0 ? pages[0].path : null;
  useEffect(() => {
    if (landing) navigate(landing, true);
  }, [landing]);
  const page = pages.find((p) => path === p.path || path.startsWith(p.path + '/'));
  const hidden = PAGES.find((p) => path === p.path || path.startsWith(p.path + '/'));
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span class="brand">Arbor</span>
        <nav aria-label="Sections">
          <ul>
            {pages.map((p) => (
              <li key={p.path}>
                <a href={'/console' + p.path} aria-current={page === p ? 'page' : undefined} onClick={linkClick(p.path)}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <label class="project" for="current-project">
          Project
        </label>
        <select id="current-project" value={signed.project ?? ''} onChange={(e) => chooseProject((e.target as HTMLSelectElement).value)}>
            {signed.principal.role === 'admin' && <option value="">None</option>}
            {signed.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
        </select>
        <span class="who">{signed.principal.role === 'admin' ? 'Admin' : 'Member'}</span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" key={signed.project ?? ''}>
        {path.startsWith('/oauth/return') ? (
          <OAuthReturn />
        ) : page ? (
          page.render(signed)
        ) : hidden ? (
          <p role="alert">This token may not use {hidden.title}.</p>
        ) : (
          <p role="alert">There is no page here.</p>
        )}
      </main>
    </>
  );
}

function SignIn(props: { onSignedIn: (signed: Signed) => void }) {
  const [token, setToken] = useState('');
  const submit = async () => {
    session.signIn(token.trim());
    try {
      props.onSignedIn(await load());
    } catch (error) {
      session.signOut();
      if (error instanceof ApiError && error.status === 401) {
        // the envelope names no field: the token is the field at fault
        throw new ApiError(401, { code: error.code, param: 'token', message: error.message }, []);
      }
      throw error;
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Arbor</h1>
      <Form label="Sign in" submit="Sign in" onSubmit={submit}>
        <TextField
          param="token"
          label="Token"
          type="password"
          value={token}
          onInput={setToken}
          hint="An API token (arb_…). It is kept in this tab only and sent with each call."
        />
      </Form>
    </main>
  );
}
