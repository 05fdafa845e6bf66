// History: the decisions, newest first, paged by cursor, with search and the filters the API offers (template,
// time range, text, outcome); a decision's detail with its answers, timings and feedback, and a form to give it.
import { useState } from 'preact/hooks';
import { studio, type Decision } from '../api';
import { Form, Field } from '../forms';
import { linkClick } from '../router';
import { Loaded, Notice, useLoad, when } from './common';
import { studioLink } from './studio';
import { percent } from './studio-charts';
import { AnswerView, ExpectedFields, decisionText, type Expected } from './studio-questions';

interface Filters {
  q: string;
  template: string;
  outcome: string;
  labelled: string;
  from: string;
  to: string;
}

const EMPTY: Filters = { q: '', template: '', outcome: '', labelled: '', from: '', to: '' };
const PAGE = 20;

/** The filters as the list's query: a time from the date fields, the outcome as act and status. */
function query(f: Filters): Record<string, string | undefined> {
  const time = (local: string) => (local ? new Date(local).toISOString() : undefined);
  return {
    q: f.q.trim() || undefined,
    template: f.template || undefined,
    act: f.outcome === 'acted' ? 'true' : f.outcome === 'review' ? 'false' : undefined,
    status: f.outcome === 'failed' ? 'failed' : f.outcome === 'review' ? 'completed' : undefined,
    labelled: f.labelled || undefined,
    created_after: time(f.from),
    created_before: time(f.to),
  };
}

export function History() {
  const templates = useLoad(() => studio.templates({ limit: 100 }));
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [cursor, setCursor] = useState<{ after?: string; before?: string }>({});
  const list = useLoad(() => studio.decisions({ ...query(applied), ...cursor, limit: PAGE }), [applied, cursor]);
  const set = (part: Partial<Filters>) => setDraft({ ...draft, ...part });
  const input = (key: keyof Filters) => (e: Event) => set({ [key]: (e.target as HTMLInputElement).value });
  return (
    <section aria-labelledby="history-title">
      <h1 id="history-title">History</h1>
      <Form
        label="Filter decisions"
        submit="Search"
        onSubmit={async () => {
          setApplied(draft);
          setCursor({});
        }}
      >
        <div class="filters">
          <Field param="q" label="Text" hint="Words the situation holds" control={(id, d, inv) => <input id={id} type="search" aria-describedby={d} aria-invalid={inv} value={draft.q} onInput={input('q')} />} />
          <Field
            param="template"
            label="Template"
            control={(id, d, inv) => (
              <select id={id} aria-describedby={d} aria-invalid={inv} value={draft.template} onChange={input('template')}>
                <option value="">Any</option>
                <option value="none">None (own questions)</option>
                {(templates.value?.data ?? []).map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.id}
                  </option>
                ))}
              </select>
            )}
          />
          <Field
            param="act"
            label="Outcome"
            control={(id, d, inv) => (
              <select id={id} aria-describedby={d} aria-invalid={inv} value={draft.outcome} onChange={input('outcome')}>
                <option value="">Any</option>
                <option value="acted">Acted</option>
                <option value="review">Needs review</option>
                <option value="failed">Failed</option>
              </select>
            )}
          />
          <Field
            param="labelled"
            label="Feedback"
            control={(id, d, inv) => (
              <select id={id} aria-describedby={d} aria-invalid={inv} value={draft.labelled} onChange={input('labelled')}>
                <option value="">Any</option>
                <option value="true">With feedback</option>
                <option value="false">Without feedback</option>
              </select>
            )}
          />
          <Field param="created_after" label="From" control={(id, d, inv) => <input id={id} type="datetime-local" aria-describedby={d} aria-invalid={inv} value={draft.from} onInput={input('from')} />} />
          <Field param="created_before" label="To" control={(id, d, inv) => <input id={id} type="datetime-local" aria-describedby={d} aria-invalid={inv} value={draft.to} onInput={input('to')} />} />
        </div>
      </Form>
      <Loaded state={list}>
        {(page) => (
          <>
            {page.data.length === 0 ? (
              <p>No decision matches.</p>
            ) : (
              <table>
                <caption>Decisions</caption>
                <thead>
                  <tr>
                    <th scope="col">Decision</th>
                    <th scope="col">When</th>
                    <th scope="col">Template</th>
                    <th scope="col">Model</th>
                    <th scope="col">Answers</th>
                    <th scope="col">Outcome</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((d) => (
                    <tr key={d.id}>
                      <th scope="row">
                        <a href={'/console' + studioLink('decision', d.id)} onClick={linkClick(studioLink('decision', d.id))}>
                          {d.id}
                        </a>
                      </th>
                      <td>{when(d.created_at)}</td>
                      <td>{d.template ? `${d.template.id}@${d.template.version}` : '—'}</td>
                      <td>{d.model ?? '—'}</td>
                      <td>
                        {Object.entries(d.answers)
                          .map(([q, a]) => `${q}: ${decisionText(a)} (${percent(a.certainty)})`)
                          .join('; ')}
                      </td>
                      <td>
                        {d.status !== 'completed' ? d.status : d.act ? 'acted' : `review ${d.needs_review.join(', ')}`}
                        {d.labelled ? ' · feedback' : ''}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <div class="pager">
              <button type="button" disabled={!cursor.after && !cursor.before} onClick={() => setCursor({})}>
                Newest
              </button>
              <button type="button" disabled={!page.first_id || (!cursor.after && !(cursor.before && page.has_more))} onClick={() => setCursor({ before: page.first_id! })}>
                Newer
              </button>
              <button type="button" disabled={!page.last_id || (cursor.before ? false : !page.has_more)} onClick={() => setCursor({ after: page.last_id! })}>
                Older
              </button>
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}

export function DecisionDetail(props: { decisionId: string }) {
  const decision = useLoad(() => studio.decision(props.decisionId), [props.decisionId]);
  const feedback = useLoad(() => studio.feedback(props.decisionId), [props.decisionId]);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <section aria-labelledby="decision-title">
      <h1 id="decision-title">Decision {props.decisionId}</h1>
      <p>
        <a href="/console/studio/history" onClick={linkClick('/studio/history')}>
          Back to history
        </a>
      </p>
      <Notice text={notice} />
      <Loaded state={decision}>
        {(d) => (
          <>
            <Facts decision={d} />
            <h2>Situation</h2>
            <pre class="situation">{situation(d)}</pre>
            {d.input?.variables && Object.keys(d.input.variables).length > 0 && (
              <>
                <h2>Variables</h2>
                <pre class="situation">{JSON.stringify(d.input.variables, null, 2)}</pre>
              </>
            )}
            <h2>Answers</h2>
            {Object.entries(d.answers).map(([q, a]) => (
              <AnswerView key={q} question={q} answer={a} />
            ))}
            <h2>Feedback</h2>
            <Loaded state={feedback}>
              {(page) =>
                page.data.length === 0 ? (
                  <p>No feedback yet.</p>
                ) : (
                  <table>
                    <caption>Feedback given</caption>
                    <thead>
                      <tr>
                        <th scope="col">Question</th>
                        <th scope="col">Expected</th>
                        <th scope="col">Answered</th>
                        <th scope="col">Right</th>
                        <th scope="col">Rating</th>
                        <th scope="col">When</th>
                      </tr>
                    </thead>
                    <tbody>
                      {page.data.map((f) => (
                        <tr key={f.id}>
                          <th scope="row">{f.question === '*' ? '(rating only)' : f.question}</th>
                          <td>{label(f.expected)}</td>
                          <td>{label(f.predicted)}</td>
                          <td>{f.correct === null ? '—' : f.correct ? 'yes' : 'no'}</td>
                          <td>{f.rating === null ? '—' : f.rating > 0 ? 'good' : 'bad'}</td>
                          <td>{when(f.created_at)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )
              }
            </Loaded>
            {d.status === 'completed' && (
              <GiveFeedback
                decision={d}
                onDone={(text) => {
                  setNotice(text);
                  feedback.reload();
                }}
              />
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

const label = (v: unknown) => (v === null || v === undefined ? '—' : Array.isArray(v) ? v.join(', ') : String(v));

function situation(d: Decision): string {
  const input = d.input;
  if (!input) return `Not kept (history stored ${d.store}).`;
  if (typeof input.rendered_state === 'string') return input.rendered_state;
  return typeof input.state === 'string' ? input.state : JSON.stringify(input.state, null, 2);
}

function Facts(props: { decision: Decision }) {
  const d = props.decision;
  const timing = d.timing ?? {};
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        {d.status}
        {d.error ? `: ${d.error.message}` : ''}
      </dd>
      <dt>Outcome</dt>
      <dd>{d.act ? 'acts' : `needs review (${d.needs_review.join(', ')})`}</dd>
      <dt>Model</dt>
      <dd>{d.model ?? '—'}</dd>
      <dt>Template</dt>
      <dd>
        {d.template ? (
          <a href={'/console' + studioLink('template', d.template.id)} onClick={linkClick(studioLink('template', d.template.id))}>
            {d.template.id} version {d.template.version}
          </a>
        ) : (
          'none'
        )}
      </dd>
      <dt>Made</dt>
      <dd>{when(d.created_at)}</dd>
      <dt>Timings</dt>
      <dd>
        {['queue_ms', 'load_ms', 'model_ms', 'total_ms']
          .filter((k) => timing[k] !== undefined)
          .map((k) => `${k.replace('_ms', '')} ${Math.round(timing[k])} ms`)
          .join(' · ') || '—'}
      </dd>
      <dt>Settings</dt>
      <dd>
        act threshold {d.settings.act_threshold} · temperature {d.settings.temperature}
      </dd>
      {d.usage && (
        <>
          <dt>Tokens</dt>
          <dd>{d.usage.input_tokens} in</dd>
        </>
      )}
    </dl>
  );
}

function GiveFeedback(props: { decision: Decision; onDone: (notice: string) => void }) {
  const [expected, setExpected] = useState<Expected>({});
  const [rating, setRating] = useState('');
  const submit = async () => {
    const saved = await studio.giveFeedback(props.decision.id, { expected, rating: rating === '' ? null : Number(rating) });
    const right = saved.data.filter((f) => f.correct === true).length;
    const labelled = saved.data.filter((f) => f.correct !== null).length;
    props.onDone(`Feedback saved: ${right} of ${labelled} labelled answers were right.`);
  };
  return (
    <div class="panel">
      <h2>Give feedback</h2>
      <Form label="Feedback" submit="Send feedback" onSubmit={submit}>
        <ExpectedFields answers={props.decision.answers} value={expected} onChange={setExpected} prefix="expected" />
        <Field
          param="rating"
          label="Rating"
          control={(id, d, inv) => (
            <select id={id} aria-describedby={d} aria-invalid={inv} value={rating} onChange={(e) => setRating((e.target as HTMLSelectElement).value)}>
              <option value="">No rating</option>
              <option value="1">Good</option>
              <option value="-1">Bad</option>
            </select>
          )}
        />
      </Form>
    </div>
  );
}
