// A pipeline's schedules: cron in a time zone, with the params its runs get; pause and resume (disable and
// enable), run now, delete, and the next firings the server computes.
import { useState } from 'preact/hooks';
import { ApiError, pipelinesApi, type Pipeline, type Schedule } from '../api';
import { Field, Form, SchemaFields, TextField, check, initialValues, valuesToSend, type Values } from '../forms';
import { ConfirmButton, Loaded, Notice, useLoad } from './common';
import { Status, runParamFields, time } from './pipelines-common';

export function Schedules(props: { pipeline: Pipeline; onRunStarted: () => void }) {
  const schedules = useLoad(() => pipelinesApi.schedules(props.pipeline.id), [props.pipeline.id]);
  const [notice, setNotice] = useState<string | null>(null);
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setNotice(done);
    } catch (e) {
      setNotice(e instanceof ApiError ? e.message : String(e));
    }
    schedules.reload();
  };
  return (
    <section aria-labelledby="schedules-title">
      <h2 id="schedules-title">Schedules</h2>
      <Notice text={notice} />
      <Loaded state={schedules}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No schedule yet.</p>
          ) : (
            <table aria-labelledby="schedules-title">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Cron</th>
                  <th scope="col">Time zone</th>
                  <th scope="col">Status</th>
                  <th scope="col">Next run</th>
                  <th scope="col">Last run</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((s) => (
                  <ScheduleRow key={s.id} schedule={s} act={act} onRunStarted={props.onRunStarted} />
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      <NewSchedule
        pipeline={props.pipeline}
        onCreated={(s) => {
          setNotice(`${s.name} scheduled.`);
          schedules.reload();
        }}
      />
    </section>
  );
}

function ScheduleRow(props: { schedule: Schedule; act: (work: () => Promise<unknown>, done: string) => void; onRunStarted: () => void }) {
  const s = props.schedule;
  const paused = s.status === 'paused';
  return (
    <tr>
      <th scope="row">{s.name}</th>
      <td>
        <code>{s.cron}</code>
      </td>
      <td>{s.timezone}</td>
      <td>
        <Status status={s.status} />
      </td>
      <td>{s.next_runs.length > 0 ? s.next_runs[0].local : '—'}</td>
      <td>
        {time(s.last_run_at)}
        {s.last_error && <span class="error"> {s.last_error}</span>}
      </td>
      <td class="actions">
        <button
          type="button"
          aria-label={`${paused ? 'Resume' : 'Pause'} ${s.name}`}
          onClick={() =>
            props.act(
              () => (paused ? pipelinesApi.resumeSchedule(s.id) : pipelinesApi.pauseSchedule(s.id)),
              `${s.name} ${paused ? 'resumed' : 'paused'}.`,
            )
          }
        >
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button
          type="button"
          aria-label={`Run ${s.name} now`}
          onClick={() =>
            props.act(async () => {
              await pipelinesApi.runSchedule(s.id);
              props.onRunStarted();
            }, `A run of ${s.name} started.`)
          }
        >
          Run now
        </button>
        <ConfirmButton label="Delete" confirm={`Delete ${s.name}`} onConfirm={() => props.act(() => pipelinesApi.deleteSchedule(s.id), `${s.name} deleted.`)} />
      </td>
    </tr>
  );
}

function NewSchedule(props: { pipeline: Pipeline; onCreated: (schedule: Schedule) => void }) {
  const fields = runParamFields(props.pipeline.definition.parameters ?? []);
  const [name, setName] = useState('');
  const [cron, setCron] = useState('');
  const [timezone, setTimezone] = useState('UTC');
  const [enabled, setEnabled] = useState(true);
  const [params, setParams] = useState<Values>(initialValues(fields));
  const submit = async () => {
    const created = await pipelinesApi.createSchedule(props.pipeline.id, {
      ...(name ? { name } : {}),
      cron,
      timezone,
      enabled,
      params: valuesToSend(fields, params),
    });
    setName('');
    setCron('');
    props.onCreated(created);
  };
  return (
    <div class="panel">
      <h3 id="new-schedule-title">New schedule</h3>
      <Form label="New schedule" submit="Create schedule" idPrefix="schedule" onSubmit={submit} checkFirst={() => check(fields, params, 'params')}>
        <TextField param="name" label="Schedule name" value={name} onInput={setName} />
        <TextField
          param="cron"
          label="Cron"
          required
          value={cron}
          onInput={setCron}
          hint="Five fields: minute hour day-of-month month day-of-week, e.g. 0 6 * * 1-5 (weekdays at 06:00)."
        />
        <TextField param="timezone" label="Time zone" value={timezone} onInput={setTimezone} hint="An IANA zone such as Europe/Berlin." />
        <Field
          param="enabled"
          label="Enabled"
          control={(id, described) => (
            <input id={id} type="checkbox" aria-describedby={described} checked={enabled} onChange={(e) => setEnabled((e.target as HTMLInputElement).checked)} />
          )}
        />
        {fields.length > 0 && (
          <fieldset>
            <legend>Params of its runs</legend>
            <SchemaFields fields={fields} values={params} onChange={setParams} prefix="params" />
          </fieldset>
        )}
      </Form>
    </div>
  );
}
