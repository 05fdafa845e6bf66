// The studio in the console: a decision made in the playground with its bars, found in history and given feedback,
// a template created and edited with the diff of its two versions, an eval on imported examples with its charts,
// and the manual's screenshot of the playground (docs/console.md).
import { args, base, nav, page, see, signIn, snap } from '../harness.mjs';

const LONG_MS = 120_000;

async function openStudio(section) {
  await signIn(args.token);
  await nav().getByRole('link', { name: 'Studio' }).click();
  const studio = page.getByRole('navigation', { name: 'Studio' });
  await see(studio, 'the studio sections');
  if (section) await studio.getByRole('link', { name: section }).click();
}

/** Each bar on the page as "question: option" → the probability it shows (the meter's value). */
async function bars() {
  const shown = {};
  for (const meter of await page.getByRole('meter').all()) {
    shown[await meter.getAttribute('aria-label')] = Number(await meter.getAttribute('aria-valuenow'));
  }
  return shown;
}

async function decide() {
  await page.getByRole('form', { name: 'Decision' }).getByRole('button', { name: 'Decide' }).click();
  const result = page.getByRole('region', { name: 'Decision' });
  try {
    await result.getByRole('meter').first().waitFor({ state: 'visible', timeout: LONG_MS });
  } catch {
    throw new Error('the page does not show the decision with its bars');
  }
  return result;
}

export const scenarios = {
  async 'studio-playground'() {
    await openStudio();
    await see(page.getByRole('heading', { name: 'Playground' }), 'the playground');
    const form = page.getByRole('form', { name: 'Decision' });
    await form.getByLabel('Situation').fill(args.situation);
    await form.getByLabel('Key of question 1').fill('team');
    await form.getByLabel('Option 1 of question 1', { exact: true }).fill('billing');
    await form.getByLabel('Description of option 1 of question 1').fill('charges, invoices, refunds');
    await form.getByLabel('Option 2 of question 1', { exact: true }).fill('technical');
    await form.getByLabel('Description of option 2 of question 1').fill('errors, crashes, outages');
    await form.getByRole('button', { name: 'Add a question' }).click();
    await form.getByLabel('Key of question 2').fill('urgent');
    await form.getByLabel('Type of question 2').selectOption({ label: 'Yes/no' });
    await form.getByLabel('Instructions of question 2').fill('Does this need an answer today?');
    await snap('questions');
    const result = await decide();
    await see(result.getByRole('region', { name: 'Answer to team' }), 'the answer to team');
    await see(result.getByRole('region', { name: 'Answer to urgent' }), 'the answer to urgent');
    await see(result.getByRole('meter', { name: 'team: billing' }), 'the bar of billing');
    await see(result.getByRole('meter', { name: 'urgent: yes' }), 'the bar of yes');
    await see(result.getByText(/certainty \d/).first(), 'the certainty');
    await see(result.getByText(/^(Acts|Needs review)/), 'whether it acts');
    const link = result.getByRole('link', { name: /^dec_/ });
    const decisionId = (await link.textContent()).trim();
    await snap('decided');
    const shown = await bars();
    await link.click();
    await see(page.getByRole('heading', { name: `Decision ${decisionId}` }), "the decision's detail");
    return { decision_id: decisionId, bars: shown };
  },

  async 'studio-history-feedback'() {
    await openStudio('History');
    const filters = page.getByRole('form', { name: 'Filter decisions' });
    await filters.getByLabel('Text').fill(args.search);
    await filters.getByRole('button', { name: 'Search' }).click();
    const decisions = page.getByRole('table', { name: 'Decisions' });
    await see(decisions.getByRole('link', { name: args.decision }), 'the decision found by its text');
    // the header and the one decision whose situation has the word: the others were listed before the search
    try {
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
    } catch {
      throw new Error('the search found other decisions too');
    }
    await snap('found');
    await decisions.getByRole('link', { name: args.decision }).click();
    await see(page.getByRole('heading', { name: `Decision ${args.decision}` }), "the decision's detail");
    await see(page.getByText(args.search, { exact: false }).first(), 'the situation');
    await see(page.getByRole('region', { name: 'Answer to team' }).getByRole('meter').first(), 'the answer with its bars');
    await see(page.getByText('No feedback yet.'), 'no feedback yet');
    const form = page.getByRole('form', { name: 'Feedback' });
    await form.getByLabel('Expected team').selectOption('technical');
    await form.getByLabel('Rating').selectOption({ label: 'Bad' });
    await form.getByRole('button', { name: 'Send feedback' }).click();
    await see(page.getByText(/^Feedback saved: 0 of 1 labelled answers were right\./), 'the feedback saved');
    const given = page.getByRole('table', { name: 'Feedback given' });
    await see(given.getByRole('row').filter({ hasText: 'technical' }), 'the feedback in the list');
    await snap('feedback');
    return {};
  },

  async 'studio-template-diff'() {
    await openStudio('Templates');
    await page.getByRole('button', { name: 'New template' }).click();
    const create = page.getByRole('form', { name: 'New template' });
    await create.getByLabel('Template id').fill(args.template);
    await create.getByLabel('Name').fill('Routing');
    await create.getByLabel('Key of question 1').fill('team');
    await create.getByLabel('Option 1 of question 1', { exact: true }).fill('billing');
    await create.getByLabel('Option 2 of question 1', { exact: true }).fill('technical');
    await create.getByRole('button', { name: 'Create template' }).click();
    await see(page.getByRole('heading', { name: `Template ${args.template}` }), "the new template's page");
    const edit = page.getByRole('form', { name: `Edit ${args.template}` });
    await see(edit, 'the editor of version 1');
    await edit.getByRole('button', { name: 'Add option to question 1' }).click();
    await edit.getByLabel('Option 3 of question 1', { exact: true }).fill('legal');
    await edit.getByLabel('Description of option 3 of question 1').fill('contracts and terms');
    await edit.getByLabel('Note').fill('Adds legal');
    await edit.getByRole('button', { name: 'Save version' }).click();
    await see(page.getByText(`Saved version 2 of ${args.template}.`), 'version 2 saved');
    await page.getByRole('button', { name: 'Versions' }).click();
    const versions = page.getByRole('table', { name: `Versions of ${args.template}` });
    await see(versions.getByRole('row').filter({ hasText: 'Adds legal' }), 'version 2 in the list');
    const diff = page.getByRole('table', { name: 'Diff of version 1 and version 2' });
    await see(diff.locator('tr.added'), 'the lines version 2 added in the diff');
    const added = await diff.locator('tr.added').allTextContents();
    const removed = await diff.locator('tr.removed').allTextContents();
    await see(page.getByText('question team: options added legal'), "the server's summary of the change");
    const aliases = page.getByRole('form', { name: 'Set alias' });
    await aliases.getByLabel('Alias').fill('prod');
    await aliases.getByLabel('Version').selectOption('1');
    await aliases.getByRole('button', { name: 'Set alias' }).click();
    await see(page.getByText('prod now names version 1.'), 'the alias set');
    await see(page.getByRole('list', { name: `Aliases of ${args.template}` }).getByText('prod → version 1'), 'the alias listed');
    await snap('diff');
    return { added, removed };
  },

  async 'studio-eval'() {
    await signIn(args.token);
    await page.goto(`${base}/console/studio/template?id=${encodeURIComponent(args.template)}`);
    await page.getByRole('button', { name: 'Examples' }).click();
    const importing = page.getByRole('form', { name: 'Import examples' });
    await importing.getByLabel('Examples (JSON lines)').fill(args.examples.join('\n'));
    await importing.getByRole('button', { name: 'Import' }).click();
    await see(page.getByText(`Imported ${args.examples.length} examples.`), 'the examples imported');
    await see(page.getByRole('table', { name: `Examples of ${args.template} (${args.examples.length})` }), 'the examples listed');
    await snap('examples');
    await page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Evals' }).click();
    const start = page.getByRole('form', { name: 'Start an eval' });
    await start.getByLabel('Template to measure').selectOption(args.template);
    await start.getByRole('button', { name: 'Start eval' }).click();
    await see(page.getByRole('progressbar', { name: 'Items done' }), "the eval's progress");
    try {
      await page.getByRole('status').getByText('completed').waitFor({ timeout: LONG_MS });
    } catch {
      throw new Error('the page does not show the eval completed');
    }
    const evalId = new URL(page.url()).searchParams.get('id');
    const results = { eval_id: evalId, reliability: {}, confusion: {} };
    for (const question of args.questions) {
      await see(page.getByRole('img', { name: new RegExp(`^Reliability diagram of ${question}`) }), `the reliability diagram of ${question}`);
      const bins = page.locator('figure', { hasText: `Reliability diagram of ${question}` }).locator('rect.bin');
      results.reliability[question] = await bins.evaluateAll((rects) =>
        rects.map((r) => ({ from: Number(r.dataset.from), n: Number(r.dataset.n), accuracy: Number(r.dataset.accuracy) })),
      );
    }
    const matrix = page.getByRole('table', { name: `Confusion matrix of ${args.confused}` });
    await see(matrix, `the confusion matrix of ${args.confused}`);
    results.confusion = await matrix.getByRole('row').evaluateAll((rows) => rows.map((r) => Array.from(r.children, (c) => c.textContent)));
    await see(page.getByRole('table', { name: /^Metrics of / }), 'the metrics table');
    await snap('results');
    return results;
  },

  async 'studio-key'() {
    await signIn(args.token);
    await nav().getByRole('link', { name: 'Studio' }).click();
    const form = page.getByRole('form', { name: 'Studio key' });
    await see(form, "the form for the studio's key");
    await form.getByLabel('Studio API key').fill('sk-not-this-one');
    await form.getByRole('button', { name: 'Use key' }).click();
    await see(form.locator('#field-key-error'), "the server's message beside the key");
    await snap('wrong-key');
    await form.getByLabel('Studio API key').fill(args.key);
    await form.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Templates' }).click();
    await see(page.getByRole('table', { name: 'Templates' }).getByRole('link', { name: args.template }), 'the templates the key opens');
    await snap('opened');
    return {};
  },

  /** The manual's picture (docs/console.md): a starter template's questions answered in the playground, at a laptop's size. */
  async 'studio-readme-screenshot'() {
    await openStudio();
    await page.getByLabel('Template').selectOption({ label: 'Support triage (builtin/support)' });
    await see(page.getByLabel('Key of question 3'), "the template's questions filled in");
    await decide();
    await see(page.getByRole('meter', { name: 'churn_risk: yes' }), 'the bars of every question');
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.getByRole('button', { name: 'Sign out' }).blur();
    await page.screenshot({ path: args.path, fullPage: false });
    return {};
  },
};
