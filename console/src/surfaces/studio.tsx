// The studio: one tab in the navigation with its own sections (playground, history, templates, evals), each a
// route under /studio.
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
