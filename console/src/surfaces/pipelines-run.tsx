// A run's page: its steps with their status, timing, outputs and errors, kept live by the run's event stream (the
// page reads the run again as events arrive), the run's log, and retry (a failed run), pause and resume, or cancel (an
// unfinished one); an approval step that waits is answered here with a comment, and an ended run is replayed from a
// step chosen from its steps.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, pipelinesApi, type Run, type RunEvent } from '../api';
import { linkClick, navigate } from '../router';
import { ConfirmButton, Loaded, Notice, useLoad } from './common';
import { Status, duration, time } from './pipelines-common';

const RECONNECT_MS = 2_000;

export function RunPage(props: { runId: string }) {
  const run = useLoad(() => pipelinesApi.run(props.runId), [props.runId]);
  const pipeline = useLoad(
    () => (run.value ? pipelinesApi.get(run.value.pipeline_id) : Promise.resolve(null)),
    [run.value?.pipeline_id],
  );
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [live, setLive] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // a retried run streams again: the generation restarts the stream from the last event seen
  const [generation, setGeneration] = useState(0);
  const [comment, setComment] = useState('');
  const [fromStep, setFromStep] = useState('');
  const lastEvent = useRef(0);

  useEffect(() => {
    const abort = new AbortController();
    let refresh: number | undefined;
    // events come in bursts (a step's start and end in one commit): the run is read again once per burst
    const reload = () => {
      clearTimeout(refresh);
      refresh = window.setTimeout(run.reload, 100);
    };
    const follow = async () => {
      while (!abort.signal.aborted) {
        setLive(true);
        let ended = false;
        try {
          ended = await pipelinesApi.followRun(
            props.runId,
            lastEvent.current,
            (event) => {
              if (event.id <= lastEvent.current) return;
              lastEvent.current = event.id;
              setEvents((seen) => [...seen, event]);
              reload();
            },
            abort.signal,
          );
        } catch (e) {
          // a refusal stays one; a broken stream (a restart, the network) is followed on from the last event
          ended = e instanceof ApiError;
        }
        setLive(false);
        if (ended || abort.signal.aborted) break;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
      reload();
    };
    follow();
    return () => {
      abort.abort();
      clearTimeout(refresh);
    };
  }, [props.runId, generation]);

  const act = async (work: () => Promise<Run>, done: string, followAgain: boolean) => {
    try {
      await work();
      setNotice(done);
      if (followAgain) setGeneration((g) => g + 1);
    } catch (e) {
      setNotice(e instanceof ApiError ? e.message : String(e));
    }
    run.reload();
  };

  const answer = async (stepId: string, decision: 'approved' | 'rejected') => {
    try {
      await pipelinesApi.answerApproval(props.runId, stepId, decision, comment.trim());
      setComment('');
      setNotice(decision === 'approved' ? `Step ${stepId} was approved.` : `Step ${stepId} was rejected.`);
    } catch (e) {
      setNotice(e instanceof ApiError ? e.message : String(e));
    }
    run.reload();
  };

  const replay = async (r: Run) => {
    const from = fromStep || (r.steps ?? []).find((s) => s.status === 'failed')?.id || (r.steps ?? [])[0]?.id;
    if (!from) return;
    try {
      const started = await pipelinesApi.replayRun(r.id, from);
      navigate(`/pipelines/runs/${started.id}`);
    } catch (e) {
      setNotice(e instanceof ApiError ? e.message : String(e));
    }
  };

  return (
    <section aria-labelledby="run-title">
      <Loaded state={run}>
        {(r) => (
          <>
            <p>
              <a href={`/console/pipelines/${r.pipeline_id}`} onClick={linkClick(`/pipelines/${r.pipeline_id}`)}>
                {pipeline.value ? pipeline.value.name : 'The pipeline'}
              </a>
            </p>
            <h1 id="run-title">Run {r.id}</h1>
            <Notice text={notice} />
            <dl class="facts" aria-label="Run">
              <dt>Status</dt>
              <dd>
                <Status status={r.status} />
                {live && <span class="live"> · following live</span>}
              </dd>
              <dt>Progress</dt>
              <dd>
                {r.progress ? (
                  <>
                    <progress max={r.progress.total_steps} value={r.progress.finished_steps} aria-label="Steps finished" />{' '}
                    {r.progress.finished_steps} of {r.progress.total_steps} steps finished
                  </>
                ) : (
                  '—'
                )}
              </dd>
              <dt>Version</dt>
              <dd>
                {r.pipeline_version}
                {pipeline.value && pipeline.value.version !== r.pipeline_version && (
                  <span class="meta"> (the pipeline is at version {pipeline.value.version} now; this run keeps its own)</span>
                )}
              </dd>
              {r.replay_of && (
                <>
                  <dt>Replays</dt>
                  <dd>
                    <a href={`/console/pipelines/runs/${r.replay_of}`} onClick={linkClick(`/pipelines/runs/${r.replay_of}`)}>
                      {r.replay_of}
                    </a>
                  </dd>
                </>
              )}
              <dt>Started by</dt>
              <dd>{r.trigger.type}</dd>
              <dt>Created</dt>
              <dd>{time(r.created_at)}</dd>
              <dt>Finished</dt>
              <dd>{time(r.finished_at)}</dd>
              {Object.keys(r.params).length > 0 && (
                <>
                  <dt>Params</dt>
                  <dd>
                    <code>{JSON.stringify(r.params)}</code>
                  </dd>
                </>
              )}
              {r.error && (
                <>
                  <dt>Error</dt>
                  <dd class="error">
                    <code>{r.error.code}</code> {r.error.message}
                  </dd>
                </>
              )}
              {r.outputs && (
                <>
                  <dt>Outputs</dt>
                  <dd>
                    <code>{JSON.stringify(r.outputs)}</code>
                  </dd>
                </>
              )}
            </dl>
            <p class="run-actions">
              {r.status === 'failed' && (
                <button type="button" onClick={() => act(() => pipelinesApi.retryRun(r.id), 'The run goes on from the steps that failed.', true)}>
                  Retry run
                </button>
              )}
              {(r.status === 'queued' || r.status === 'running') && (
                <button type="button" onClick={() => act(() => pipelinesApi.pauseRun(r.id), 'The run is paused: steps running now finish, no new step starts.', false)}>
                  Pause run
                </button>
              )}
              {r.status === 'paused' && (
                <button type="button" onClick={() => act(() => pipelinesApi.resumeRun(r.id), 'The run goes on where it stood.', true)}>
                  Resume run
                </button>
              )}
              {(r.status === 'queued' || r.status === 'running' || r.status === 'paused') && (
                <ConfirmButton label="Cancel run" confirm="Cancel this run" onConfirm={() => act(() => pipelinesApi.cancelRun(r.id), 'The run was cancelled.', false)} />
              )}
            </p>
            {(r.steps ?? [])
              .filter((s) => s.action === 'approval' && s.status === 'waiting')
              .map((s) => (
                <form key={s.id} class="approval" aria-label={`Approval ${s.id}`} onSubmit={(e) => e.preventDefault()}>
                  <label>
                    Comment on step {s.id}
                    <textarea value={comment} maxLength={2000} onInput={(e) => setComment((e.target as HTMLTextAreaElement).value)} />
                  </label>
                  <button type="button" onClick={() => answer(s.id, 'approved')}>
                    Approve {s.id}
                  </button>{' '}
                  <button type="button" onClick={() => answer(s.id, 'rejected')}>
                    Reject {s.id}
                  </button>
                </form>
              ))}
            {(r.status === 'failed' || r.status === 'cancelled' || r.status === 'completed') && (
              <form class="replay" aria-label="Replay" onSubmit={(e) => e.preventDefault()}>
                <label>
                  Replay from step
                  <select value={fromStep} onChange={(e) => setFromStep((e.target as HTMLSelectElement).value)}>
                    <option value="">the first that failed</option>
                    {(r.steps ?? []).map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.id}
                      </option>
                    ))}
                  </select>
                </label>
                <button type="button" onClick={() => replay(r)}>
                  Replay run
                </button>
              </form>
            )}
            <table>
              <caption>Steps</caption>
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Action</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Started</th>
                  <th scope="col">Took</th>
                  <th scope="col">Output or error</th>
                </tr>
              </thead>
              <tbody>
                {(r.steps ?? []).map((s) => (
                  <tr key={s.id}>
                    <th scope="row">{s.name && s.name !== s.id ? `${s.name} (${s.id})` : s.id}</th>
                    <td>{s.action}</td>
                    <td>
                      <Status status={s.status} />
                      {s.next_attempt_at !== null && s.status === 'retrying' && <span class="meta"> next try {time(s.next_attempt_at)}</span>}
                    </td>
                    <td>{s.attempts}</td>
                    <td>{time(s.started_at)}</td>
                    <td>{duration(s.duration_ms)}</td>
                    <td>
                      {s.error ? (
                        <span class="error">
                          <code>{s.error.code}</code> {s.error.message}
                        </span>
                      ) : s.outputs ? (
                        <code>{JSON.stringify(s.outputs)}</code>
                      ) : (
                        ''
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Loaded>
      <h2 id="run-log-title">Log</h2>
      {events.length === 0 ? (
        <p>Nothing logged yet.</p>
      ) : (
        <ol class="run-log" aria-labelledby="run-log-title">
          {events.map((e) => (
            <li key={e.id} class={'log-' + (e.level ?? e.kind)}>
              <span class="meta">{time(e.created_at)}</span> <span class="meta">{e.step_id ?? 'run'}</span>{' '}
              {e.kind === 'log' && <strong>{e.level}</strong>} {e.message}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
