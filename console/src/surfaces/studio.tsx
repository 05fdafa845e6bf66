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

function section(path: string) {
  if (path.startsWith('/studio/decisions/') || path === '/studio/history') return '/studio/history';
  return [...SECTIONS].reverse().find((s) => path === s.path || path.startsWith(s.path + '/'))?.path ?? '/studio';
}

export function Studio() {
  const path = usePath();
  const current = section(path);
  const rest = (prefix: string) => decodeURIComponent(path.slice(prefix.length));
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
      {path.startsWith('/studio/decisions/') ? (
        <DecisionDetail key={path} decisionId={rest('/studio/decisions/')} />
      ) : path.startsWith('/studio/templates/') ? (
        <TemplatePage key={path} templateId={rest('/studio/templates/')} />
      ) : path.startsWith('/studio/evals/') ? (
        <EvalPage key={path} evalId={rest('/studio/evals/')} />
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
