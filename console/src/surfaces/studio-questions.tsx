// Questions in and answers out: the editor of a decision's or a template's questions (the six types the API
// takes), an answer with its bars, and the fields for the expected answers of feedback and examples.
import type { Answer, Question, QuestionType } from '../api';
import { Field } from '../forms';
import { ProbabilityBars, percent } from './studio-charts';

export const TYPES: { type: QuestionType; label: string; options: string }[] = [
  { type: 'choice', label: 'Choice (one option)', options: 'Options' },
  { type: 'noul', label: 'Yes/no', options: '' },
  { type: 'multi', label: 'Multi (any options apply)', options: 'Options' },
  { type: 'score', label: 'Score (levels, lowest first)', options: 'Levels' },
  { type: 'rank', label: 'Rank (options in order)', options: 'Options' },
  { type: 'number', label: 'Number (likely values)', options: 'Values' },
];

interface Option {
  name: string;
  description: string;
}

/** One question as the editor holds it; `bound` keeps options that come from a template's options variable. */
export interface Draft {
  key: string;
  type: QuestionType;
  instructions: string;
  options: Option[];
  yes: string;
  no: string;
  threshold: string;
  unit: string;
  bound?: string;
}

export const newDraft = (n: number): Draft => ({
  key: `question_${n}`,
  type: 'choice',
  instructions: '',
  options: [
    { name: '', description: '' },
    { name: '', description: '' },
  ],
  yes: '',
  no: '',
  threshold: '',
  unit: '',
});

export function toDrafts(questions: Record<string, Question> | undefined): Draft[] {
  return Object.entries(questions ?? {}).map(([key, q]) => {
    const draft: Draft = { ...newDraft(0), key, type: q.type, instructions: q.instructions ?? '', options: [] };
    const criteria = q.criteria;
    if (typeof criteria === 'string') draft.bound = criteria;
    else if (q.type === 'noul' && criteria && !Array.isArray(criteria)) {
      draft.yes = criteria.true ?? '';
      draft.no = criteria.false ?? '';
    } else if (Array.isArray(criteria)) draft.options = criteria.map((c) => ({ name: String(c), description: '' }));
    else if (criteria) draft.options = Object.entries(criteria).map(([name, d]) => ({ name, description: d ?? '' }));
    if (q.threshold !== undefined) draft.threshold = String(q.threshold);
    if (q.unit) draft.unit = q.unit;
    return draft;
  });
}

/** The questions as the API takes them; what the user left empty is left out, and the server judges the rest. */
export function toQuestions(drafts: Draft[]): Record<string, Question> {
  const out: Record<string, Question> = {};
  for (const d of drafts) {
    const q: Question = { type: d.type };
    if (d.instructions.trim()) q.instructions = d.instructions.trim();
    const options = d.options.filter((o) => o.name.trim() !== '' || o.description.trim() !== '');
    const described = options.some((o) => o.description.trim() !== '');
    if (d.bound) q.criteria = d.bound;
    else if (d.type === 'noul') {
      const sides: Record<string, string> = {};
      if (d.yes.trim()) sides.true = d.yes.trim();
      if (d.no.trim()) sides.false = d.no.trim();
      if (Object.keys(sides).length > 0) q.criteria = sides;
    } else if (d.type === 'score') q.criteria = options.map((o) => o.name.trim());
    else if (d.type === 'number' && !described) {
      // a value that is not a number goes as typed, so that the server names it
      q.criteria = options.map((o) => (o.name.trim() !== '' && Number.isFinite(Number(o.name)) ? Number(o.name) : o.name)) as number[];
    } else if (described) {
      q.criteria = Object.fromEntries(options.map((o) => [o.name.trim(), o.description.trim() || null]));
    } else q.criteria = options.map((o) => o.name.trim());
    if (d.type === 'multi' && d.threshold.trim()) q.threshold = Number(d.threshold);
    if (d.type === 'number' && d.unit.trim()) q.unit = d.unit.trim();
    out[d.key.trim()] = q;
  }
  return out;
}

/** The questions of a decision or a template; the server's problems with one show at its key. */
export function QuestionsEditor(props: { drafts: Draft[]; onChange: (drafts: Draft[]) => void }) {
  const { drafts, onChange } = props;
  const change = (i: number, part: Partial<Draft>) => onChange(drafts.map((d, j) => (j === i ? { ...d, ...part } : d)));
  return (
    <div class="questions">
      {drafts.map((d, i) => {
        const n = i + 1;
        const kind = TYPES.find((t) => t.type === d.type)!;
        const setOption = (k: number, part: Partial<Option>) =>
          change(i, { options: d.options.map((o, j) => (j === k ? { ...o, ...part } : o)) });
        return (
          <fieldset key={i} class="question">
            <legend>Question {n}</legend>
            <div class="row">
              <Field
                param={`questions.${d.key.trim()}`}
                label={`Key of question ${n}`}
                required
                control={(id, described, invalid) => (
                  <input
                    id={id}
                    class="key"
                    value={d.key}
                    aria-describedby={described}
                    aria-invalid={invalid}
                    autocomplete="off"
                    onInput={(e) => change(i, { key: (e.target as HTMLInputElement).value })}
                  />
                )}
              />
              <div class="field">
                <label for={`question-${n}-type`}>Type of question {n}</label>
                <select
                  id={`question-${n}-type`}
                  value={d.type}
                  onChange={(e) => change(i, { type: (e.target as HTMLSelectElement).value as QuestionType })}
                >
                  {TYPES.map((t) => (
                    <option key={t.type} value={t.type}>
                      {t.label}
                    </option>
                  ))}
                </select>
              </div>
            </div>
            <div class="field">
              <label for={`question-${n}-instructions`}>Instructions of question {n}</label>
              <input
                id={`question-${n}-instructions`}
                type="text"
                value={d.instructions}
                placeholder="What should the model decide?"
                onInput={(e) => change(i, { instructions: (e.target as HTMLInputElement).value })}
              />
            </div>
            {d.bound ? (
              <p class="meta">Options from the variable {d.bound}.</p>
            ) : d.type === 'noul' ? (
              <div class="row">
                <div class="field">
                  <label for={`question-${n}-yes`}>What yes means (question {n})</label>
                  <input id={`question-${n}-yes`} type="text" value={d.yes} onInput={(e) => change(i, { yes: (e.target as HTMLInputElement).value })} />
                </div>
                <div class="field">
                  <label for={`question-${n}-no`}>What no means (question {n})</label>
                  <input id={`question-${n}-no`} type="text" value={d.no} onInput={(e) => change(i, { no: (e.target as HTMLInputElement).value })} />
                </div>
              </div>
            ) : (
              <fieldset class="options">
                <legend>
                  {kind.options} of question {n}
                </legend>
                {d.options.map((o, k) => (
                  <div class="pair" key={k}>
                    <input
                      aria-label={`${kind.options.slice(0, -1)} ${k + 1} of question ${n}`}
                      value={o.name}
                      type={d.type === 'number' ? 'number' : 'text'}
                      step="any"
                      onInput={(e) => setOption(k, { name: (e.target as HTMLInputElement).value })}
                    />
                    {d.type !== 'score' && (
                      <input
                        class="wide"
                        aria-label={`Description of ${kind.options.slice(0, -1).toLowerCase()} ${k + 1} of question ${n}`}
                        placeholder="description (optional)"
                        value={o.description}
                        onInput={(e) => setOption(k, { description: (e.target as HTMLInputElement).value })}
                      />
                    )}
                    <button
                      type="button"
                      class="link"
                      aria-label={`Remove ${kind.options.slice(0, -1).toLowerCase()} ${k + 1} of question ${n}`}
                      onClick={() => change(i, { options: d.options.filter((_, j) => j !== k) })}
                    >
                      Remove
                    </button>
                  </div>
                ))}
                <button type="button" class="link" onClick={() => change(i, { options: [...d.options, { name: '', description: '' }] })}>
                  Add {kind.options.slice(0, -1).toLowerCase()} to question {n}
                </button>
              </fieldset>
            )}
            {d.type === 'multi' && (
              <div class="field">
                <label for={`question-${n}-threshold`}>Threshold of question {n}</label>
                <input
                  id={`question-${n}-threshold`}
                  type="number"
                  min="0"
                  max="1"
                  step="0.05"
                  placeholder="0.5"
                  value={d.threshold}
                  onInput={(e) => change(i, { threshold: (e.target as HTMLInputElement).value })}
                />
              </div>
            )}
            {d.type === 'number' && (
              <div class="field">
                <label for={`question-${n}-unit`}>Unit of question {n}</label>
                <input id={`question-${n}-unit`} type="text" value={d.unit} onInput={(e) => change(i, { unit: (e.target as HTMLInputElement).value })} />
              </div>
            )}
            <button type="button" class="danger" onClick={() => onChange(drafts.filter((_, j) => j !== i))}>
              Remove question {n}
            </button>
          </fieldset>
        );
      })}
      <button type="button" onClick={() => onChange([...drafts, newDraft(drafts.length + 1)])}>
        Add a question
      </button>
    </div>
  );
}

export const decisionText = (answer: { type: QuestionType; decision: unknown }) => {
  const d = answer.decision;
  if (Array.isArray(d)) return d.length ? d.join(', ') : 'none';
  return d === null || d === undefined ? '—' : String(d);
};

/** One answer: what was decided, how sure, whether it acts, and a bar per option. */
export function AnswerView(props: { question: string; answer: Answer }) {
  const { question, answer } = props;
  const shown = answer.type === 'score' && answer.legend?.[String(answer.decision)] ? `${answer.decision}: ${answer.legend[String(answer.decision)]}` : decisionText(answer);
  return (
    <section class="answer" aria-label={`Answer to ${question}`}>
      <div class="answer-head">
        <h3>{question}</h3>
        <span class="meta">{TYPES.find((t) => t.type === answer.type)?.label ?? answer.type}</span>
        <span>
          <strong>{shown}</strong> · certainty {percent(answer.certainty)} ·{' '}
          <span class={answer.act ? 'acts' : 'review'}>{answer.act ? 'acts' : 'needs review'}</span>
        </span>
      </div>
      <ProbabilityBars question={question} answer={answer} />
    </section>
  );
}

/** The values an expected answer may take for a question, read from its answer's options. */
function choices(answer: Answer): { value: string; label: string }[] {
  if (answer.type === 'noul') return [{ value: 'yes', label: 'yes' }, { value: 'no', label: 'no' }];
  return Object.keys(answer.probabilities).map((o) => ({
    value: o,
    label: answer.type === 'score' && answer.legend?.[o] ? `${o}: ${answer.legend[o]}` : o,
  }));
}

export type Expected = Record<string, unknown>;

/** A field per question for the answer it should get (feedback, test examples); errors at `<prefix>.<question>`. */
export function ExpectedFields(props: {
  answers: Record<string, Answer>;
  value: Expected;
  onChange: (value: Expected) => void;
  prefix: string;
}) {
  const set = (q: string, v: unknown) => {
    const next = { ...props.value };
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) delete next[q];
    else next[q] = v;
    props.onChange(next);
  };
  return (
    <>
      {Object.entries(props.answers).map(([q, answer]) => (
        <Field
          key={q}
          param={`${props.prefix}.${q}`}
          label={`Expected ${q}`}
          control={(id, described, invalid) =>
            answer.type === 'multi' ? (
              <select
                id={id}
                multiple
                aria-describedby={described}
                aria-invalid={invalid}
                onChange={(e) => set(q, Array.from((e.target as HTMLSelectElement).selectedOptions, (o) => o.value))}
              >
                {choices(answer).map((c) => (
                  <option key={c.value} value={c.value} selected={Array.isArray(props.value[q]) && (props.value[q] as string[]).includes(c.value)}>
                    {c.label}
                  </option>
                ))}
              </select>
            ) : answer.type === 'number' ? (
              <input
                id={id}
                type="number"
                step="any"
                aria-describedby={described}
                aria-invalid={invalid}
                value={props.value[q] === undefined ? '' : String(props.value[q])}
                onInput={(e) => {
                  const text = (e.target as HTMLInputElement).value;
                  set(q, text === '' ? undefined : Number(text));
                }}
              />
            ) : (
              <select
                id={id}
                aria-describedby={described}
                aria-invalid={invalid}
                value={props.value[q] === undefined ? '' : String(props.value[q])}
                onChange={(e) => set(q, (e.target as HTMLSelectElement).value)}
              >
                <option value="">— not labelled —</option>
                {choices(answer).map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </select>
            )
          }
        />
      ))}
    </>
  );
}

/**
 * Answers shaped from a question definition (before any decision), so that examples of a template get the same
 * expected-answer fields as feedback does.
 */
export function answersOf(questions: Record<string, Question> | undefined): Record<string, Answer> {
  const out: Record<string, Answer> = {};
  for (const [key, q] of Object.entries(questions ?? {})) {
    const criteria = q.criteria;
    let options: string[] = [];
    const legend: Record<string, string> = {};
    if (q.type === 'noul') options = ['false', 'true'];
    else if (q.type === 'score' && Array.isArray(criteria)) {
      options = criteria.map((_, i) => String(i));
      criteria.forEach((c, i) => (legend[String(i)] = String(c)));
    } else if (Array.isArray(criteria)) options = criteria.map(String);
    else if (criteria && typeof criteria === 'object') options = Object.keys(criteria);
    out[key] = {
      type: q.type,
      probabilities: Object.fromEntries(options.map((o) => [o, 0])),
      decision: null,
      top_probability: 0,
      certainty: 0,
      act: false,
      legend,
    };
  }
  return out;
}
