// The studio's charts, as plain SVG drawn by Preact (the page's CSP allows no inline styles: sizes are SVG
// attributes): probability bars, the reliability diagram and the confusion matrix.
import type { Answer, ReliabilityBin } from '../api';

export const percent = (p: number | null | undefined) => (p === null || p === undefined ? '—' : `${(p * 100).toFixed(1)}%`);

/** What an option of an answer is called on the page: yes/no for yes/no questions, the level's text for scores. */
export function optionLabel(answer: Answer, option: string): string {
  if (answer.type === 'noul') return option === 'true' ? 'yes' : option === 'false' ? 'no' : option;
  if (answer.type === 'score' && answer.legend?.[option] !== undefined) return `${option}: ${answer.legend[option]}`;
  if (answer.type === 'number' && answer.unit) return `${option} ${answer.unit}`;
  return option;
}

function chosen(answer: Answer, option: string): boolean {
  const decision = answer.decision;
  if (Array.isArray(decision)) return decision.includes(option);
  if (answer.type === 'noul') return (decision === 'yes') === (option === 'true');
  return decision !== null && String(decision) === option;
}

/** One bar per option, its probability as the meter's value (what the browser tests read back). */
export function ProbabilityBars(props: { question: string; answer: Answer }) {
  const { answer, question } = props;
  const options = Object.entries(answer.probabilities);
  return (
    <ul class="bars" aria-label={`Probabilities of ${question}`}>
      {options.map(([option, p]) => (
        <li key={option} class={chosen(answer, option) ? 'chosen' : undefined}>
          <span class="bar-label">{optionLabel(answer, option)}</span>
          <span
            class="bar"
            role="meter"
            aria-label={`${question}: ${optionLabel(answer, option)}`}
            aria-valuemin={0}
            aria-valuemax={1}
            aria-valuenow={p}
            aria-valuetext={percent(p)}
          >
            <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
              <rect class="track" x="0" y="0" width="100" height="10" />
              <rect class="fill" x="0" y="0" width={Math.max(0, Math.min(1, p)) * 100} height="10" />
              {answer.type === 'multi' && answer.threshold !== undefined && (
                <line class="threshold" x1={answer.threshold * 100} x2={answer.threshold * 100} y1="0" y2="10" />
              )}
            </svg>
          </span>
          <span class="bar-value">{percent(p)}</span>
        </li>
      ))}
    </ul>
  );
}

const SIZE = 240;
const PAD = 32;
const PLOT = SIZE - PAD - 8;
const x = (v: number) => PAD + v * PLOT;
const y = (v: number) => 8 + (1 - v) * PLOT;

/**
 * Confidence (the answers' top probability, in 10 bins) against how often they were right: a bar per bin to its
 * accuracy, a dot at its mean confidence, and the diagonal a calibrated model follows.
 */
export function ReliabilityDiagram(props: { question: string; bins: ReliabilityBin[] }) {
  const name = `Reliability diagram of ${props.question}`;
  const filled = props.bins.filter((b) => b.n > 0);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${SIZE} ${SIZE}`}
        width={SIZE}
        height={SIZE}
        role="img"
        aria-label={`${name}: ${filled.map((b) => `${b.from.toFixed(1)}–${b.to.toFixed(1)}: ${b.n} answers, ${percent(b.accuracy)} right`).join('; ') || 'no answers'}`}
      >
        <rect class="plot" x={x(0)} y={y(1)} width={PLOT} height={PLOT} />
        {[0, 0.25, 0.5, 0.75, 1].map((t) => (
          <g key={t} class="tick">
            <line x1={x(t)} x2={x(t)} y1={y(0)} y2={y(0) + 4} />
            <text x={x(t)} y={y(0) + 14} text-anchor="middle">
              {t}
            </text>
            <line x1={x(0) - 4} x2={x(0)} y1={y(t)} y2={y(t)} />
            <text x={x(0) - 6} y={y(t) + 3} text-anchor="end">
              {t}
            </text>
          </g>
        ))}
        {props.bins.map((b) =>
          b.n > 0 && b.accuracy !== null ? (
            <rect
              key={b.from}
              class="bin"
              data-from={b.from}
              data-n={b.n}
              data-accuracy={b.accuracy}
              x={x(b.from) + 1}
              y={y(b.accuracy)}
              width={PLOT / 10 - 2}
              height={y(0) - y(b.accuracy)}
            >
              <title>{`${b.from.toFixed(1)}–${b.to.toFixed(1)}: ${b.n} answers, ${percent(b.accuracy)} right, mean confidence ${percent(b.confidence)}`}</title>
            </rect>
          ) : null,
        )}
        <line class="diagonal" x1={x(0)} y1={y(0)} x2={x(1)} y2={y(1)} />
        {filled.map((b) => (
          <circle key={b.from} class="mean" cx={x(b.confidence ?? 0)} cy={y(b.accuracy ?? 0)} r="3" />
        ))}
        <text class="axis" x={x(0.5)} y={SIZE - 2} text-anchor="middle">
          confidence
        </text>
        <text class="axis" x="10" y={y(0.5)} text-anchor="middle" transform={`rotate(-90 10 ${y(0.5)})`}>
          accuracy
        </text>
      </svg>
      <figcaption>{name}</figcaption>
    </figure>
  );
}

/** Expected labels down, predicted answers across; the diagonal is what the model got right. */
export function ConfusionMatrix(props: { question: string; confusion: Record<string, Record<string, number>> }) {
  const expected = Object.keys(props.confusion);
  const predicted = [...new Set([...expected, ...expected.flatMap((e) => Object.keys(props.confusion[e]))])];
  const most = Math.max(1, ...expected.flatMap((e) => Object.values(props.confusion[e])));
  return (
    <table class="confusion">
      <caption>Confusion matrix of {props.question}</caption>
      <thead>
        <tr>
          <th scope="col">expected ↓ / answered →</th>
          {predicted.map((p) => (
            <th key={p} scope="col">
              {p}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {expected.map((e) => (
          <tr key={e}>
            <th scope="row">{e}</th>
            {predicted.map((p) => {
              const count = props.confusion[e][p] ?? 0;
              const shade = count === 0 ? 0 : Math.ceil((count / most) * 4);
              return (
                <td key={p} class={`shade${shade}${e === p ? ' right' : ''}`}>
                  {count}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A finished share of work, for progress that the page polls. */
export function Progress(props: { label: string; done: number; total: number }) {
  const share = props.total > 0 ? props.done / props.total : 0;
  return (
    <div class="progress">
      <span
        class="bar"
        role="progressbar"
        aria-label={props.label}
        aria-valuemin={0}
        aria-valuemax={props.total}
        aria-valuenow={props.done}
      >
        <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
          <rect class="track" x="0" y="0" width="100" height="10" />
          <rect class="fill" x="0" y="0" width={share * 100} height="10" />
        </svg>
      </span>{' '}
      {props.done} of {props.total}
    </div>
  );
}
