// Routers: building a router's graph in the editor (steps from the catalog, links with the mouse and with the
// keyboard's form, the server's check of a missing parameter beside its field), saving and activating it; a weighted
// step's endpoints in its row editor, with the graph's problems shown before any save; and what a member's list holds.
import { args, gone, nav, page, see, signIn, snap, until } from '../harness.mjs';

const node = (stepId) => page.getByRole('button', { name: new RegExp(`^Step ${stepId},`) });
const fieldOf = (param) => page.locator(`[data-param="${param}"]`);
// a required field's label ends with its mark, " *"
const labelled = (text, scope = page) => scope.getByLabel(new RegExp(`^${text}( \\*)?$`));

async function addStep(action, stepId) {
  await page.getByLabel('Action of a new step').selectOption({ label: action });
  await page.getByRole('button', { name: 'Add step' }).click();
  await see(node(stepId), `the ${stepId} step in the graph`);
  await see(page.getByRole('group', { name: new RegExp(`^Step ${stepId} · ${action}`) }), `the form of ${stepId}`);
}

async function noErrorAt(param, what) {
  try {
    await fieldOf(param).locator('.error').waitFor({ state: 'detached' });
  } catch {
    throw new Error(`the page still shows a problem with ${what}`);
  }
}

export const scenarios = {
  async 'routers/build-graph'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Routers' }).click();
    await see(page.getByRole('heading', { name: 'Routers', exact: true }), 'the Routers page');
    const create = page.getByRole('form', { name: 'New router' });
    await labelled('Name', create).fill(args.name);
    await create.getByRole('button', { name: 'Create router' }).click();
    await see(page.getByRole('heading', { name: `Router ${args.name}` }), 'the editor of the new router');
    await see(page.getByText('draft', { exact: true }), 'the new router a draft');

    // a system prompt step without its prompt: the server's check shows beside the Prompt field
    await addStep('System Prompt', 'system_prompt');
    const prompt = 'dag_config.steps[0].params.prompt';
    await see(fieldOf(prompt).locator('.error'), 'the missing prompt beside the Prompt field');
    await until(async () => (await labelled('Prompt').getAttribute('aria-invalid')) === 'true', 'the Prompt field marked invalid');
    // (the graph's own problem too: a way through it that ends without an endpoint)
    await see(page.getByRole('button', { name: /^Step system_prompt, .*\d+ problems?$/ }), 'the problems counted on the step');
    const missing = await fieldOf(prompt).locator('.error').textContent();
    await snap('missing-prompt');
    await labelled('Prompt').fill(args.prompt);
    await noErrorAt(prompt, 'the prompt once given');

    await addStep('Request Limits', 'request_limits');
    await labelled('Max tokens').fill('256');
    await addStep('Single Endpoint', 'single_endpoint');
    await see(fieldOf('dag_config.steps[2].params.endpoint').locator('.error'), 'the missing endpoint beside its field');
    await labelled('Endpoint').selectOption(args.endpoint);
    await noErrorAt('dag_config.steps[2].params.endpoint', 'the endpoint once chosen');

    // saved active unlinked, the graph's problems come back beside the fields and on the steps they name
    const editor = page.getByRole('form', { name: `Router ${args.name}` });
    await editor.getByRole('button', { name: 'Save' }).click();
    await see(fieldOf('dag_config.steps[2].step_id').locator('.error'), 'the unreachable step beside its Step id');
    await see(page.getByRole('button', { name: /^Step request_limits, .*problems?$/ }), 'the problems counted on request_limits');
    await snap('unlinked');

    // system_prompt → request_limits with the mouse: select, "Connect … to…", the next step
    await node('system_prompt').click();
    await page.getByRole('button', { name: 'Connect system_prompt to…' }).click();
    await see(page.getByText('Choose the step that follows system_prompt.'), 'the choice of the next step');
    await node('request_limits').click();
    // request_limits → single_endpoint with the keyboard's way: the later step's "Depends on"
    await node('single_endpoint').focus();
    await page.keyboard.press('Enter');
    await see(page.getByRole('group', { name: /^Step single_endpoint/ }), 'the form of single_endpoint');
    await labelled('Depends on').selectOption(['request_limits']);
    const links = page.getByRole('list', { name: 'Links between steps' });
    await see(links.getByText('system_prompt → request_limits'), 'the first link');
    await see(links.getByText('request_limits → single_endpoint'), 'the second link');
    await page.getByText('dag_config as JSON').click();
    await see(page.getByLabel('dag_config (JSON)'), 'the JSON of the graph');
    const entryStep = async () => JSON.parse(await page.getByLabel('dag_config (JSON)').inputValue()).entry_step;
    await until(async () => (await entryStep()) === 'system_prompt', 'system_prompt as the JSON\'s entry step');
    await snap('graph');

    await editor.getByLabel('Save as').selectOption('draft');
    await editor.getByRole('button', { name: 'Save' }).click();
    await see(page.getByText(`Saved: ${args.name} is draft.`), 'the router saved as a draft');
    await gone(page.locator('.field .error'), 'problems after the save');
    await page.getByRole('button', { name: 'Activate' }).click();
    await see(page.getByText(`${args.name} is active.`), 'the router activated');
    await see(page.getByRole('button', { name: 'Deactivate' }), 'the router active');
    await see(page.getByRole('table', { name: /^Graphs earlier saves replaced/ }).getByRole('row', { name: /^1 / }), 'the replaced graph kept as version 1');
    await snap('active');

    await page.getByRole('link', { name: '← All routers' }).click();
    const row = page.getByRole('row').filter({ hasText: args.name });
    await see(row.getByText('active'), 'the router active in the list');
    await see(row.getByText(args.endpoint, { exact: true }), 'what the router routes to');
    await snap('list');
    return { missing };
  },

  async 'routers/weighted-graph'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Routers' }).click();
    const create = page.getByRole('form', { name: 'New router' });
    await labelled('Name', create).fill(args.name);
    await create.getByRole('button', { name: 'Create router' }).click();
    await see(page.getByRole('heading', { name: `Router ${args.name}` }), 'the editor of the new router');
    await addStep('System Prompt', 'system_prompt');
    await labelled('Prompt').fill('Be brief.');
    await addStep('Weighted Routing', 'weighted_routing');

    // before any save, the server's check of the whole graph: no way from the entry step reaches weighted_routing
    const stepId = 'dag_config.steps[1].step_id';
    await see(fieldOf(stepId).locator('.error'), 'the unreachable step beside its Step id before saving');
    const unreachable = await fieldOf(stepId).locator('.error').textContent();
    await snap('unreachable');

    // two endpoints and their weights in the row editor; a weight of 0 is refused beside its row
    const add = page.getByRole('button', { name: 'Add endpoint to weights' });
    await add.click();
    await add.click();
    await page.getByLabel('Weights 1 endpoint').selectOption(args.first);
    await page.getByLabel('Weights 1 weight').fill('3');
    await page.getByLabel('Weights 2 endpoint').selectOption(args.second);
    await page.getByLabel('Weights 2 weight').fill('0');
    const second = fieldOf('dag_config.steps[1].params.weights[1]');
    await see(second.locator('.error'), 'the weight of 0 refused beside the second row');
    await snap('weight-refused');
    await page.getByLabel('Weights 2 weight').fill('1');
    await noErrorAt('dag_config.steps[1].params.weights[1]', 'the second row once its weight is 1');
    await see(page.getByText('The weights add up to 4.'), 'the sum of the weights');

    // rows move with the keyboard: the second up, then (the focus follows it) back down
    await page.getByRole('button', { name: 'Move Weights 2 up' }).focus();
    await page.keyboard.press('Enter');
    const firstRow = () => page.getByLabel('Weights 1 endpoint').inputValue();
    await until(async () => (await firstRow()) === args.second, 'the second row moved up');
    await page.keyboard.press('Enter');
    await until(async () => (await firstRow()) === args.first, 'the row moved back down');

    // linked after system_prompt, the unreachable step's problem goes before any save
    await labelled('Depends on').selectOption(['system_prompt']);
    await noErrorAt(stepId, 'weighted_routing once system_prompt leads to it');
    await gone(page.locator('.error, .problems'), 'problems once the graph is complete');
    await snap('linked');
    await page.getByRole('form', { name: `Router ${args.name}` }).getByRole('button', { name: 'Save' }).click();
    await see(page.getByText(`Saved: ${args.name} is active.`), 'the router saved active');
    return { unreachable };
  },

  async 'routers/member-list'() {
    await signIn(args.token);
    await nav().getByRole('link', { name: 'Routers' }).click();
    const table = page.getByRole('table', { name: 'Routers of the current project' });
    await see(table.getByRole('link', { name: args.mine }), `${args.mine} in the list`);
    await gone(table.getByText(args.theirs), `${args.theirs} to a member`);
    await snap('member');
    return { rows: (await table.getByRole('row').count()) - 1 };
  },

  async 'routers/delete'() {
    await signIn(args.token);
    await nav().getByRole('link', { name: 'Routers' }).click();
    const row = page.getByRole('row').filter({ hasText: args.name });
    await see(row, `${args.name} in the list`);
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: `Delete ${args.name}` }).click();
    await see(page.getByText(`${args.name} deleted.`), 'the router deleted');
    await gone(page.getByRole('row').filter({ hasText: args.name }), `the deleted router ${args.name}`);
    await snap('deleted');
    return {};
  },
};
