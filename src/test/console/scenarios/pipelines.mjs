// Pipelines: a definition made in the editor and saved (the server's refusal shown beside the field it names), a
// run whose steps the page follows live from the event stream, its log; a failed run retried, a slow run
// paused and resumed, another cancelled, and schedules made, paused, resumed and deleted.
import { args, base, gone, nav, page, see, signIn, snap } from '../harness.mjs';

const step = (form, n) => form.getByRole('group', { name: new RegExp(`^Step ${n}\\b`) });
const stepRow = (id) => page.getByRole('table', { name: 'Steps' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: id }) });
const runFacts = () => page.getByRole('definition').filter({ has: page.locator('.run-state') }).first();

async function openPipeline(name) {
  await nav().getByRole('link', { name: 'Pipelines' }).click();
  await see(page.getByRole('heading', { name: 'Pipelines', exact: true }), 'the Pipelines page');
  await page.getByRole('table', { name: 'Pipelines' }).getByRole('link', { name, exact: true }).click();
  await see(page.getByRole('heading', { name, exact: true }), `the page of ${name}`);
}

/** Starts a run from the pipeline's page (its params as given) and answers the run's id once its page shows. */
async function startRun(params = {}) {
  const form = page.getByRole('form', { name: 'Start a run' });
  for (const [label, value] of Object.entries(params)) await form.getByLabel(label, { exact: true }).fill(value);
  await form.getByRole('button', { name: 'Start run' }).click();
  await see(page.getByRole('heading', { name: /^Run run_/ }), "the run's page");
  return decodeURIComponent(page.url().split('/').pop());
}

async function stepIs(id, status) {
  await see(stepRow(id).getByText(status, { exact: true }), `step ${id} ${status}`);
}

async function runIs(status) {
  await see(runFacts().getByText(status, { exact: true }), `the run ${status}`);
}

export const scenarios = {
  async 'pipelines/member'() {
    await signIn(args.token);
    await gone(nav().getByRole('link', { name: 'Pipelines' }), 'the Pipelines link to a member');
    await page.goto(base + '/console/pipelines');
    await see(page.getByText('This token may not use Pipelines'), 'the refusal of the Pipelines page');
    return {};
  },

  async 'pipelines/run'() {
    await signIn(args.token);
    await nav().getByRole('link', { name: 'Pipelines' }).click();
    await page.getByRole('link', { name: 'New pipeline' }).click();
    const form = page.getByRole('form', { name: 'Pipeline definition' });
    await see(form, 'the definition editor');
    await form.getByLabel('Pipeline name').fill(args.name);

    await form.getByRole('button', { name: 'Add parameter' }).click();
    const parameter = form.getByRole('group', { name: 'Parameter 1' });
    await parameter.getByLabel('Name').fill('who');
    await parameter.getByLabel('Default').fill('world');

    // the step forms are generated from the action catalog: each action's own fields appear when it is chosen
    const greet = step(form, 1);
    await greet.getByLabel('Step id').fill('greet');
    await greet.getByLabel('Action').selectOption({ label: 'Log' });
    await see(greet.getByLabel('Level'), "the Log action's Level field");
    await greet.getByLabel('Message').fill('Hello, {{ params.who }}');

    await form.getByRole('button', { name: 'Add step' }).click();
    const call = step(form, 2);
    await call.getByLabel('Step id').fill('call');
    await call.getByLabel('Action').selectOption({ label: 'HTTP Request' });
    await call.getByLabel('Url').fill(args.gate);
    await call.getByLabel('Depends on').selectOption(['greet']);

    await form.getByRole('button', { name: 'Add step' }).click();
    const shout = step(form, 3);
    await shout.getByLabel('Step id').fill('shout');
    await shout.getByLabel('Action').selectOption({ label: 'Transform' });
    await shout.getByLabel('Operation').selectOption('template');
    // a reference to a step that does not exist: the server refuses it, beside the Template field
    await shout.getByLabel('Template').fill('{{ steps.nope.outputs.result }}');
    await shout.getByLabel('Depends on').selectOption(['call']);
    await snap('defined');
    await form.getByRole('button', { name: 'Save pipeline' }).click();
    const refusal = shout.locator('[data-param="steps[2].params.template"] .error');
    await see(refusal, "the server's message beside the Template field");
    const message = await refusal.textContent();
    await snap('refused');

    await shout.getByLabel('Template').fill('{{ params.who | upper }} got {{ steps.call.outputs.status_code }}');
    await form.getByRole('button', { name: 'Save pipeline' }).click();
    await see(page.getByRole('heading', { name: args.name, exact: true }), "the new pipeline's page");
    await see(page.getByRole('list', { name: 'Steps of the pipeline' }).getByText('http_request'), 'the saved steps');

    // from here on the page is never loaded again: what changes, changes live
    await page.evaluate(() => {
      window.notReloaded = true;
    });
    const runId = await startRun({ who: 'console' });
    await stepIs('greet', 'completed');
    // the gate holds the HTTP call until the scenario opens it: the page shows the run half done first
    await stepIs('call', 'running');
    await stepIs('shout', 'pending');
    await runIs('running');
    await snap('half-done');
    const opened = await fetch(args.open);
    if (!opened.ok) throw new Error(`opening the gate answered ${opened.status}`);
    await stepIs('call', 'completed');
    await stepIs('shout', 'completed');
    await runIs('completed');
    await see(stepRow('shout').getByText('CONSOLE got 200'), "the Transform step's output");
    const log = page.getByRole('list', { name: 'Log' });
    await see(log.getByText('Hello, console'), "the Log step's line in the run's log");
    await see(log.getByText('The run completed.'), "the run's end in its log");
    if (!(await page.evaluate(() => window.notReloaded === true))) throw new Error('the page was loaded again');
    await snap('completed');
    return { run_id: runId, refusal: message };
  },

  async 'pipelines/retry'() {
    await signIn(args.token);
    await openPipeline(args.name);
    const runId = await startRun();
    await stepIs('call', 'failed');
    await see(stepRow('call').getByText('http_status'), 'why the step failed');
    await stepIs('after', 'cancelled');
    await runIs('failed');
    await snap('failed');
    await page.getByRole('button', { name: 'Retry run' }).click();
    await stepIs('call', 'completed');
    await stepIs('after', 'completed');
    await runIs('completed');
    await snap('retried');
    return { run_id: runId };
  },

  async 'pipelines/pause'() {
    await signIn(args.token);
    await openPipeline(args.name);
    const runId = await startRun();
    await stepIs('wait', 'waiting');
    await runIs('running');
    await page.getByRole('button', { name: 'Pause run' }).click();
    await runIs('paused');
    await see(page.getByText('The run is paused'), 'what pausing does');
    await snap('paused');
    await page.getByRole('button', { name: 'Resume run' }).click();
    await runIs('running');
    await see(page.getByRole('button', { name: 'Pause run' }), 'pause offered again');
    return { run_id: runId };
  },

  async 'pipelines/approve'() {
    await signIn(args.token);
    await openPipeline(args.name);
    const runId = await startRun();
    await stepIs('ask', 'waiting');
    const form = page.getByRole('form', { name: 'Approval ask' });
    await form.getByLabel('Comment on step ask').fill('ship it');
    await snap('asked');
    await form.getByRole('button', { name: 'Approve ask' }).click();
    await see(page.getByText('Step ask was approved.'), 'the answer taken');
    await stepIs('ask', 'completed');
    await stepIs('after', 'completed');
    await runIs('completed');
    await gone(page.getByRole('form', { name: 'Approval ask' }), 'the question once answered');
    await snap('approved');
    return { run_id: runId };
  },

  async 'pipelines/replay'() {
    await signIn(args.token);
    await openPipeline(args.name);
    const failedId = await startRun();
    await stepIs('check', 'failed');
    await runIs('failed');
    const form = page.getByRole('form', { name: 'Replay' });
    await form.getByLabel('Replay from step').selectOption('check');
    await form.getByRole('button', { name: 'Replay run' }).click();
    await see(page.getByRole('heading', { name: /^Run run_/ }).filter({ hasNotText: failedId }), "the replay's page");
    await see(page.getByRole('link', { name: failedId }), 'the run it replays');
    await stepIs('count', 'completed');
    await stepIs('check', 'failed');
    await snap('replayed');
    return { failed_id: failedId, run_id: decodeURIComponent(page.url().split('/').pop()) };
  },

  async 'pipelines/cancel'() {
    await signIn(args.token);
    await openPipeline(args.name);
    const runId = await startRun();
    await stepIs('wait', 'waiting');
    await runIs('running');
    await snap('waiting');
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('button', { name: 'Cancel this run' }).click();
    await runIs('cancelled');
    await stepIs('wait', 'cancelled');
    await stepIs('next', 'cancelled');
    await snap('cancelled');
    return { run_id: runId };
  },

  async 'pipelines/schedules'() {
    await signIn(args.token);
    await openPipeline(args.name);
    const form = page.getByRole('form', { name: 'New schedule' });
    const schedules = page.getByRole('table', { name: 'Schedules' });
    const row = (name) => schedules.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

    await form.getByLabel('Schedule name').fill('mornings');
    await form.getByLabel('Cron').fill('every morning');
    await form.getByLabel('who').fill('team');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await see(form.locator('[data-param="cron"] .error'), "the server's message beside the Cron field");
    await snap('refused');
    await form.getByLabel('Cron').fill('0 6 * * 1-5');
    await form.getByLabel('Time zone').fill('Europe/Berlin');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await see(row('mornings').getByText('active', { exact: true }), 'the schedule active');
    await see(row('mornings').getByText(/T06:00/), 'its next run at 06:00 local time');

    await form.getByLabel('Schedule name').fill('evenings');
    await form.getByLabel('Cron').fill('0 18 * * *');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await see(row('evenings'), 'the second schedule');

    await page.getByRole('button', { name: 'Pause mornings' }).click();
    await see(row('mornings').getByText('paused', { exact: true }), 'the schedule paused');
    await page.getByRole('button', { name: 'Resume mornings' }).click();
    await see(row('mornings').getByText('active', { exact: true }), 'the schedule active again');
    await row('evenings').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete evenings' }).click();
    await see(page.getByText('evenings deleted.'), 'the schedule deleted');
    await gone(row('evenings'), 'the deleted schedule');
    await snap('schedules');
    return {};
  },
};
