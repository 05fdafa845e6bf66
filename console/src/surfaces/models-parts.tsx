// What the models, deployments and clusters pages share: a labelled progress bar and sizes in bytes.

/** A progress bar a screen reader names; `text` says the same in words beside it. */
export function Progress(props: { label: string; done: number; total: number; text: string }) {
  return (
    <div class="progress">
      <progress aria-label={props.label} value={props.done} max={props.total > 0 ? props.total : 1} />
      <span class="meta">{props.text}</span>
    </div>
  );
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function bytes(count: number): string {
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}
