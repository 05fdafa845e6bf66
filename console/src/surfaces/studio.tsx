// The studio: one tab in the navigation with its own sections (playground, history, templates, evals), each a
// route under /studio.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, needsStudioKey, studio, studioKey } from '../api';
import { Form, TextField } from '../forms';
import { linkClick, usePath } from '../router';
import { DecisionDetail, History } from './studio-history';
import { Playground } from './studio-playground';
import { EvalPage, Evals } from './studio-evals';
import { TemplatePage, Templates } from './studio-templates';

const SECTIONS = [
  { path: '/studio', title: 'Playground' },
  { path: '/studio/history', title: 'History' },
  { path: '/studio/templates', title: 'Templates' },
  { path: '/studio/evals', title: 'Evals' },
];

/** Links to one decision, template or eval: the id goes in the query (the server serves pages two parts deep). */
export const studioLink = (kind: 'decision' | 'template' | 'eval', id: string) => `/studio/${kind}?id=${encodeURIComponent(id)}`;

const PARENT: Record<string, string> = {
  '/studio/decision': '/studio/history',
  '/studio/template': '/studio/templates',
  '/studio/eval': '/studio/evals',
};

export function Studio() {
  const path = usePath();
  const current = PARENT[path] ?? (SECTIONS.some((s) => s.path === path) ? path : '/studio');
  const id = new URLSearchParams(location.search).get('id') ?? '';
  const [gate, setGate] = useState<'checking' | 'open' | 'key'>('checking');
  const [round, setRound] = useState(0);
  useEffect(() => {
    studio
      .settings()
      .then(() => setGate('open'))
      .catch((e) => setGate(needsStudioKey(e) ? 'key' : 'open'));
  }, [round]);
  if (gate === 'checking') return <p class="loading">Loading…</p>;
  if (gate === 'key') return <StudioKey onKey={() => setRound(round + 1)} />;
  return (
    <div class="studio">
      <nav aria-label="Studio">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.path}>
              <a href={'/console' + s.path} aria-current={current === s.path ? 'page' : undefined} onClick={linkClick(s.path)}>
                {s.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {path === '/studio/decision' ? (
        <DecisionDetail key={id} decisionId={id} />
      ) : path === '/studio/template' ? (
        <TemplatePage key={id} templateId={id} />
      ) : path === '/studio/eval' ? (
        <EvalPage key={id} evalId={id} />
      ) : current === '/studio/history' ? (
        <History />
      ) : current === '/studio/templates' ? (
        <Templates />
      ) : current === '/studio/evals' ? (
        <Evals />
      ) : (
        <Playground />
      )}
    </div>
  );
}

/** Asks for the studio's own key: checked at once, so that a wrong one is said beside the field. */
function StudioKey(props: { onKey: () => void }) {
  const [key, setKey] = useState('');
  const submit = async () => {
    studioKey.set(key.trim());
    try {
      await studio.settings();
    } catch (e) {
      studioKey.set(null);
      // the envelope names no field: the key is the field at fault
      if (e instanceof ApiError && needsStudioKey(e)) throw new ApiError(e.status, { code: e.code, param: 'key', message: e.message }, []);
      throw e;
    }
    props.onKey();
  };
  return (
    <section aria-labelledby="studio-key-title">
      <h1 id="studio-key-title">Studio</h1>
      <p>This server's studio has an API key of its own (STUDIO_API_KEY), or serves history and templates only to its own computer without one.</p>
      <Form label="Studio key" submit="Use key" onSubmit={submit}>
        <TextField param="key" label="Studio API key" type="password" value={key} onInput={setKey} hint="Kept in this tab only, like the token, and sent with the studio's calls." />
      </Form>
    </section>
  );
}
