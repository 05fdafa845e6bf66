// Evals: measure a template on labelled items (its examples, or history with feedback) on models and versions;
// the page follows the run (the API's ?wait) and draws the results: the metrics, a reliability diagram and a
// confusion matrix per question, and `apply` to write the fitted settings into a new version.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, studio, type Eval, type EvalTarget, type QuestionMetrics } from '../api';
import { Field, Form, TextField } from '../forms';
import { linkClick, navigate } from '../router';
import { Loaded, Notice, useLoad, when } from './common';
import { studioLink } from './studio';
import { ConfusionMatrix, Progress, ReliabilityDiagram, percent } from './studio-charts';

const RUNNING = ['queued', 'in_progress'];

export function Evals() {
  const evals = useLoad(() => studio.evals());
  return (
    <section aria-labelledby="evals-title">
      <h1 id="evals-title">Evals</h1>
      <p>Measure a template on labelled items: accuracy, calibration, and the settings that fit them.</p>
      <StartEval />
      <Loaded state={evals}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No eval yet.</p>
          ) : (
            <table>
              <caption>Evals</caption>
              <thead>
                <tr>
                  <th scope="col">Eval</th>
                  <th scope="col">Template</th>
                  <th scope="col">Status</th>
                  <th scope="col">Items</th>
                  <th scope="col">Started</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((e) => (
                  <tr key={e.id}>
                    <th scope="row">
                      <a href={'/console' + studioLink('eval', e.id)} onClick={linkClick(studioLink('eval', e.id))}>
                        {e.id}
                      </a>
                    </th>
                    <td>{e.template?.reference ?? 'inline definition'}</td>
                    <td>{e.status}</td>
                    <td>
                      {e.progress.done} of {e.progress.total}
                    </td>
                    <td>{when(e.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </section>
  );
}

const list = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);

function StartEval() {
  const templates = useLoad(() => studio.templates({ origin: 'user', limit: 100 }));
  const models = useLoad(() => studio.models());
  const [template, setTemplate] = useState('');
  const [source, setSource] = useState('examples');
  const [split, setSplit] = useState('');
  const [tags, setTags] = useState('');
  const [chosenModels, setChosenModels] = useState<string[]>([]);
  const [versions, setVersions] = useState('');
  const submit = async () => {
    const body: Record<string, unknown> = { template };
    if (source === 'examples') {
      const examples: Record<string, unknown> = {};
      if (split) examples.split = split;
      if (list(tags).length) examples.tags = list(tags);
      body.examples = examples;
    } else body.history = { labels: 'feedback' };
    if (chosenModels.length) body.models = chosenModels;
    if (list(versions).length) body.versions = list(versions).map((v) => (/^\d+$/.test(v) ? Number(v) : v));
    const started = await studio.startEval(body);
    navigate(studioLink('eval', started.id));
  };
  return (
    <div class="panel">
      <h2>Start an eval</h2>
      <Form label="Start an eval" submit="Start eval" onSubmit={submit}>
        <div class="filters">
          <Field
            param="template"
            label="Template to measure"
            required
            control={(id, d, inv) => (
              <select id={id} aria-describedby={d} aria-invalid={inv} value={template} onChange={(e) => setTemplate((e.target as HTMLSelectElement).value)}>
                <option value="">Choose a template</option>
                {(templates.value?.data ?? []).map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.id}
                  </option>
                ))}
              </select>
            )}
          />
          <Field
            param={source}
            label="Data set"
            control={(id, d, inv) => (
              <select id={id} aria-describedby={d} aria-invalid={inv} value={source} onChange={(e) => setSource((e.target as HTMLSelectElement).value)}>
                <option value="examples">The template's examples</option>
                <option value="history">Its decisions with feedback</option>
              </select>
            )}
          />
          {source === 'examples' && (
            <>
              <Field
                param="examples.split"
                label="Examples split"
                control={(id, d, inv) => (
                  <select id={id} aria-describedby={d} aria-invalid={inv} value={split} onChange={(e) => setSplit((e.target as HTMLSelectElement).value)}>
                    <option value="">Both (calibration fits, test measures)</option>
                    <option value="test">test</option>
                    <option value="calibration">calibration</option>
                  </select>
                )}
              />
              <TextField param="examples.tags" label="Examples tagged" value={tags} onInput={setTags} hint="Separated by commas; blank for all." />
            </>
          )}
        </div>
        <div class="filters">
          <Field
            param="models"
            label="Models"
            hint="None chosen: the template's model."
            control={(id, d, inv) => (
              <select
                id={id}
                multiple
                aria-describedby={d}
                aria-invalid={inv}
                onChange={(e) => setChosenModels(Array.from((e.target as HTMLSelectElement).selectedOptions, (o) => o.value))}
              >
                {(models.value?.data ?? []).map((m) => (
                  <option key={m.id} value={m.id} selected={chosenModels.includes(m.id)}>
                    {m.name}
                  </option>
                ))}
              </select>
            )}
          />
          <TextField param="versions" label="Versions" value={versions} onInput={setVersions} hint="Numbers or aliases, separated by commas; blank for the latest." />
        </div>
      </Form>
    </div>
  );
}

/** Follows an eval while it runs: each GET waits on the server until it finishes or 20 seconds pass. */
function useEval(evalId: string) {
  const [value, setValue] = useState<Eval | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    (async () => {
      let wait = 0;
      while (live) {
        try {
          const e = await studio.eval(evalId, wait);
          if (!live) return;
          setValue(e);
          setError(null);
          if (!RUNNING.includes(e.status)) return;
        } catch (e) {
          if (live) setError(e instanceof ApiError ? e.message : String(e));
          return;
        }
        wait = 20;
      }
    })();
    return () => {
      live = false;
    };
  }, [evalId, round]);
  return { value, error, reload: () => setRound(round + 1) };
}

export function EvalPage(props: { evalId: string }) {
  const state = useEval(props.evalId);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <section aria-labelledby="eval-title">
      <h1 id="eval-title">Eval {props.evalId}</h1>
      <p>
        <a href="/console/studio/evals" onClick={linkClick('/studio/evals')}>
          All evals
        </a>
      </p>
      <Notice text={notice} />
      <Loaded state={state}>
        {(e) => (
          <>
            <p role="status">
              {e.template?.reference ?? 'inline definition'} on {e.data_set.kind}
              {e.data_set.split ? ` (${e.data_set.split})` : ''}: <strong>{e.status}</strong>
              {e.error ? ` — ${e.error.message}` : ''}
            </p>
            <Progress label="Items done" done={e.progress.done} total={e.progress.total} />
            {e.progress.failed > 0 && <p class="meta">{e.progress.failed} items failed.</p>}
            {RUNNING.includes(e.status) && (
              <button
                type="button"
                class="danger"
                onClick={async () => {
                  await studio.cancelEval(e.id);
                  state.reload();
                }}
              >
                Cancel eval
              </button>
            )}
            {e.results?.targets.map((t) => (
              <TargetResults key={t.index} target={t} />
            ))}
            {e.status === 'completed' && e.template && e.results && (
              <Apply evaluation={e} onApplied={(text) => setNotice(text)} />
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

const num = (v: number | null | undefined, digits = 3) => (v === null || v === undefined ? '—' : v.toFixed(digits));

/** The measures a question type has beyond the shared ones. */
function extra(m: QuestionMetrics): string {
  switch (m.type) {
    case 'multi':
      return `F1 ${num(m.f1)} · exact ${percent(m.exact_match)}`;
    case 'score':
      return `within one level ${percent(m.within_one)}`;
    case 'rank':
      return `Kendall's tau ${num(m.kendall_tau)}`;
    case 'number':
      return `mean error ${num(m.mae)}`;
    default:
      return '';
  }
}

function TargetResults(props: { target: EvalTarget }) {
  const t = props.target;
  const name = `${t.model}${t.version !== null ? ` version ${t.version}` : ''}`;
  const questions = Object.entries(t.questions);
  return (
    <section class="target" aria-label={`Results of ${name}`}>
      <h2>
        Results of {name}
      </h2>
      <p class="meta">
        {t.items} items, {t.failed} failed · measured on {t.measured_on} · settings fitted on {t.fitted_on}
      </p>
      <table>
        <caption>Metrics of {name}</caption>
        <thead>
          <tr>
            <th scope="col">Question</th>
            <th scope="col">n</th>
            <th scope="col">Accuracy</th>
            <th scope="col">Brier</th>
            <th scope="col">Log loss</th>
            <th scope="col">ECE</th>
            <th scope="col">Sure and wrong</th>
            <th scope="col">Temperature (fitted)</th>
            <th scope="col">Act threshold (suggested)</th>
            <th scope="col">Other</th>
          </tr>
        </thead>
        <tbody>
          {questions.map(([q, m]) => (
            <tr key={q}>
              <th scope="row">{q}</th>
              <td>{m.n}</td>
              <td>{percent(m.accuracy)}</td>
              <td>{num(m.brier)}</td>
              <td>{num(m.log_loss)}</td>
              <td>{num(m.ece)}</td>
              <td>{m.confident_mistakes ?? '—'}</td>
              <td>{m.temperature ? `${m.temperature.current} → ${num(m.temperature.fitted, 2)}` : '—'}</td>
              <td>
                {m.act_threshold
                  ? `${m.act_threshold.current} → ${num(m.act_threshold.suggested)}${m.act_threshold.coverage !== undefined ? ` (acts on ${percent(m.act_threshold.coverage)})` : ''}`
                  : '—'}
              </td>
              <td>{extra(m)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="charts">
        {questions.map(([q, m]) => (
          <div class="chart-pair" key={q}>
            <h3>{q}</h3>
            {m.reliability && <ReliabilityDiagram question={q} bins={m.reliability} />}
            {m.confusion && <ConfusionMatrix question={q} confusion={m.confusion} />}
          </div>
        ))}
      </div>
    </section>
  );
}

function Apply(props: { evaluation: Eval; onApplied: (notice: string) => void }) {
  const e = props.evaluation;
  const [target, setTarget] = useState(0);
  const [minN, setMinN] = useState('');
  const submit = async () => {
    const body: Record<string, unknown> = { target };
    if (minN) body.min_n = Number(minN);
    const saved = await studio.applyEval(e.id, body);
    props.onApplied(`Saved the fitted settings as version ${saved.version} of ${saved.id}.`);
  };
  return (
    <div class="panel">
      <h2>Apply the fitted settings</h2>
      <p>Writes each question's fitted temperature and suggested act threshold, for the model that answered, into a new version of {e.template!.id}.</p>
      <Form label="Apply the fitted settings" submit="Apply" onSubmit={submit}>
        <div class="filters">
          <Field
            param="target"
            label="Target"
            control={(id, d, inv) => (
              <select id={id} aria-describedby={d} aria-invalid={inv} value={target} onChange={(ev) => setTarget(Number((ev.target as HTMLSelectElement).value))}>
                {e.results!.targets.map((t) => (
                  <option key={t.index} value={t.index}>
                    {t.model}
                    {t.version !== null ? ` version ${t.version}` : ''}
                  </option>
                ))}
              </select>
            )}
          />
          <TextField param="min_n" label="Fewest labels per question" value={minN} onInput={setMinN} hint="30 unless set (10 at least)." />
        </div>
      </Form>
    </div>
  );
}
