// What the pipeline pages share: a pipeline's run parameters as form fields, and how statuses and times read.
import type { PipelineParameter } from '../api';
import type { FieldSpec } from '../forms';
import { when } from './common';

/** A pipeline's declared parameters as the generated form's fields (a run's params, a schedule's params). */
export function runParamFields(parameters: PipelineParameter[]): FieldSpec[] {
  return parameters.map((p) => ({
    name: p.name,
    label: p.name,
    type: fieldType(p.type),
    integer: p.type === 'integer',
    required: p.required === true,
    description: p.description || undefined,
    default: p.default,
  }));
}

function fieldType(type: string): string {
  switch (type) {
    case 'integer':
      return 'number';
    case 'array':
    case 'object':
      return 'json';
    default:
      // string, number, boolean and the *_ref pickers are the form's own types
      return type;
  }
}

/** A status as a word with its colour class; the word is what people (and screen readers) read. */
export function Status(props: { status: string }) {
  return <span class={'run-state state-' + props.status}>{props.status}</span>;
}

export function duration(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export const time = (seconds: number | null) => (seconds === null ? '—' : when(seconds));
