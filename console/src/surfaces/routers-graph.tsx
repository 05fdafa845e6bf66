// A router's dag_config as a graph: its edges, the edits that keep both ends of an edge in step (A's next_steps
// names B exactly when B's depends_on names A), a layered layout, and the SVG that draws it.
import type { DagConfig, RouterAction, Step } from '../api';

/** `next`: a next_steps / depends_on link, edited here; `branch`: a branch target or fallback, edited in params. */
export interface Edge {
  from: string;
  to: string;
  kind: 'next' | 'branch';
}

const known = (dag: DagConfig, id: string) => dag.steps.some((s) => s.step_id === id);

export function edgesOf(dag: DagConfig): Edge[] {
  const edges: Edge[] = [];
  const add = (from: string, to: string, kind: Edge['kind']) => {
    if (from !== to && known(dag, from) && known(dag, to) && !edges.some((e) => e.from === from && e.to === to)) {
      edges.push({ from, to, kind });
    }
  };
  for (const step of dag.steps) {
    for (const next of step.next_steps ?? []) add(step.step_id, next, 'next');
    for (const before of step.depends_on ?? []) add(before, step.step_id, 'next');
  }
  for (const step of dag.steps) {
    const params = step.params ?? {};
    const branches = Array.isArray(params.branches) ? (params.branches as { next_step?: unknown }[]) : [];
    for (const branch of branches) if (typeof branch?.next_step === 'string') add(step.step_id, branch.next_step, 'branch');
    if (typeof params.fallback_step === 'string') add(step.step_id, params.fallback_step, 'branch');
  }
  return edges;
}

const without = (list: string[] | undefined, id: string) => (list ?? []).filter((x) => x !== id);
const withOne = (list: string[] | undefined, id: string) => ((list ?? []).includes(id) ? (list ?? []) : [...(list ?? []), id]);

function mapSteps(dag: DagConfig, change: (step: Step) => Step): DagConfig {
  return { ...dag, steps: dag.steps.map(change) };
}

export function connect(dag: DagConfig, from: string, to: string): DagConfig {
  if (from === to) return dag;
  return mapSteps(dag, (s) =>
    s.step_id === from ? { ...s, next_steps: withOne(s.next_steps, to) } : s.step_id === to ? { ...s, depends_on: withOne(s.depends_on, from) } : s,
  );
}

export function disconnect(dag: DagConfig, from: string, to: string): DagConfig {
  return mapSteps(dag, (s) =>
    s.step_id === from ? { ...s, next_steps: without(s.next_steps, to) } : s.step_id === to ? { ...s, depends_on: without(s.depends_on, from) } : s,
  );
}

/** The steps before `id` become exactly `before`: the links to the others are removed at both ends. */
export function setDependsOn(dag: DagConfig, id: string, before: string[]): DagConfig {
  let out = dag;
  for (const e of edgesOf(dag)) if (e.kind === 'next' && e.to === id && !before.includes(e.from)) out = disconnect(out, e.from, id);
  for (const from of before) out = connect(out, from, id);
  return out;
}

export function setNextSteps(dag: DagConfig, id: string, after: string[]): DagConfig {
  let out = dag;
  for (const e of edgesOf(dag)) if (e.kind === 'next' && e.from === id && !after.includes(e.to)) out = disconnect(out, id, e.to);
  for (const to of after) out = connect(out, id, to);
  return out;
}

export function removeStep(dag: DagConfig, id: string): DagConfig {
  const steps = dag.steps
    .filter((s) => s.step_id !== id)
    .map((s) => ({ ...s, next_steps: without(s.next_steps, id), depends_on: without(s.depends_on, id) }));
  return { ...dag, steps, entry_step: dag.entry_step === id ? steps[0]?.step_id : dag.entry_step };
}

/** A step's new id, and every link to it (next steps, depends on, branch targets, fallback, entry) renamed with it. */
export function renameStep(dag: DagConfig, from: string, to: string): DagConfig {
  const swap = (x: string) => (x === from ? to : x);
  const steps = dag.steps.map((s) => {
    const params = { ...(s.params ?? {}) };
    if (Array.isArray(params.branches)) {
      params.branches = (params.branches as Record<string, unknown>[]).map((b) =>
        b && b.next_step === from ? { ...b, next_step: to } : b,
      );
    }
    if (params.fallback_step === from) params.fallback_step = to;
    return {
      ...s,
      step_id: swap(s.step_id),
      params,
      next_steps: s.next_steps?.map(swap),
      depends_on: s.depends_on?.map(swap),
    };
  });
  return { ...dag, steps, entry_step: dag.entry_step === from ? to : dag.entry_step };
}

/** A step id not yet used: the action's type, then with a number. */
export function freshId(dag: DagConfig, type: string): string {
  if (!known(dag, type)) return type;
  for (let n = 2; ; n++) if (!known(dag, `${type}_${n}`)) return `${type}_${n}`;
}

const NODE_W = 180;
const NODE_H = 58;
const GAP_X = 70;
const GAP_Y = 24;
const PAD = 12;

interface Placed {
  x: number;
  y: number;
}

/**
 * Columns by dependency depth: a step sits one column right of the deepest step before it (the longest path from
 * a step nothing leads to); steps on a cycle, which has no such depth, go in one column after the others.
 */
export function layout(dag: DagConfig, edges: Edge[]) {
  const ids = dag.steps.map((s) => s.step_id);
  const incoming = new Map(ids.map((id) => [id, 0]));
  for (const e of edges) incoming.set(e.to, (incoming.get(e.to) ?? 0) + 1);
  const depth = new Map<string, number>();
  const ready = ids.filter((id) => incoming.get(id) === 0);
  for (const id of ready) depth.set(id, 0);
  while (ready.length > 0) {
    const id = ready.shift()!;
    for (const e of edges.filter((e) => e.from === id)) {
      depth.set(e.to, Math.max(depth.get(e.to) ?? 0, depth.get(id)! + 1));
      incoming.set(e.to, incoming.get(e.to)! - 1);
      if (incoming.get(e.to) === 0) ready.push(e.to);
    }
  }
  const deepest = Math.max(-1, ...Array.from(depth.values()));
  const columns: string[][] = [];
  for (const id of ids) {
    const column = incoming.get(id)! > 0 ? deepest + 1 : depth.get(id)!;
    (columns[column] ??= []).push(id);
  }
  const at = new Map<string, Placed>();
  columns.forEach((column, c) =>
    column.forEach((id, r) => at.set(id, { x: PAD + c * (NODE_W + GAP_X), y: PAD + r * (NODE_H + GAP_Y) })),
  );
  const rows = Math.max(1, ...columns.map((c) => c?.length ?? 0));
  return {
    at,
    width: PAD * 2 + Math.max(1, columns.length) * (NODE_W + GAP_X) - GAP_X,
    height: PAD * 2 + rows * (NODE_H + GAP_Y) - GAP_Y,
  };
}

export function Graph(props: {
  dag: DagConfig;
  actions: RouterAction[];
  problemCounts: Map<string, number>;
  selected: string | null;
  connecting: string | null;
  onPick: (stepId: string) => void;
}) {
  const { dag } = props;
  const edges = edgesOf(dag);
  const { at, width, height } = layout(dag, edges);
  const actionOf = (step: Step) => props.actions.find((a) => a.type === step.action_type);
  return (
    <svg
      class="router-graph"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="group"
      aria-label="Steps of the router"
    >
      <defs>
        <marker id="router-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
        </marker>
      </defs>
      {edges.map((e) => {
        const a = at.get(e.from)!;
        const b = at.get(e.to)!;
        const x1 = a.x + NODE_W;
        const y1 = a.y + NODE_H / 2;
        const x2 = b.x;
        const y2 = b.y + NODE_H / 2;
        const bend = Math.max(30, Math.abs(x2 - x1) / 2);
        return (
          <path
            key={`${e.from}->${e.to}`}
            class={'edge ' + e.kind}
            d={`M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`}
            marker-end="url(#router-arrow)"
          >
            <title>{`${e.from} → ${e.to}${e.kind === 'branch' ? ' (branch)' : ''}`}</title>
          </path>
        );
      })}
      {dag.steps.map((step) => {
        const p = at.get(step.step_id);
        if (!p) return null; // a repeated step id: the form's problems say so
        const action = actionOf(step);
        const problems = props.problemCounts.get(step.step_id) ?? 0;
        const entry = dag.entry_step === step.step_id;
        const label = `Step ${step.step_id}, ${action?.name ?? step.action_type}${entry ? ', entry' : ''}${
          problems ? `, ${problems} problem${problems > 1 ? 's' : ''}` : ''
        }`;
        const pick = () => props.onPick(step.step_id);
        return (
          <g
            key={step.step_id}
            class={'node' + (props.selected === step.step_id ? ' selected' : '') + (problems ? ' invalid' : '') + (props.connecting ? ' target' : '')}
            transform={`translate(${p.x} ${p.y})`}
            role="button"
            tabindex={0}
            aria-label={label}
            aria-pressed={props.selected === step.step_id}
            onClick={pick}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                pick();
              }
            }}
          >
            <rect class="box" width={NODE_W} height={NODE_H} rx="6" />
            <rect class="stripe" width="6" height={NODE_H} rx="3" fill={action?.color ?? '#6b7681'} />
            <text class="id" x="14" y="22">
              {clip(step.step_id, 20)}
            </text>
            <text class="type" x="14" y="43">
              {clip((entry ? '▶ ' : '') + (action?.name ?? step.action_type), 22)}
            </text>
            {problems > 0 && (
              <g transform={`translate(${NODE_W - 16} 14)`}>
                <circle class="badge" r="10" />
                <text class="badge-text" text-anchor="middle" y="4">
                  {problems}
                </text>
              </g>
            )}
          </g>
        );
      })}
    </svg>
  );
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + '…' : text);
