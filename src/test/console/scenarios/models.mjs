// Models, deployments and clusters: the bundled model in the registry and in a worker with its log; a deployment of
// it made on the page, watched live until it runs, scaled, rate-limited and deleted; the local cluster's health;
// what a member is offered.
import { args, base, counted, gone, nav, page, see, signIn, snap, until } from '../harness.mjs';

/** A replica is a process that loads the model: slower than a page step. */
const WORK_MS = 90_000;

async function seeWithin(locator, what, ms) {
  try {
    await locator.first().waitFor({ state: 'visible', timeout: ms });
  } catch {
    throw new Error(`the page does not show ${what} within ${ms / 1000} s`);
  }
}

async function openDeployment(name) {
  await signIn(args.token, args.project);
  await nav().getByRole('link', { name: 'Deployments' }).click();
  await page.getByRole('table', { name: 'Deployments' }).getByRole('link', { name }).click();
  await see(page.getByRole('heading', { name: `Deployment ${name}` }), `the page of ${name}`);
}

const status = () => page.locator('.status[aria-live]');

export const scenarios = {
  async 'model-registry'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Models' }).click();
    const row = page.getByRole('table', { name: 'Model registry' }).getByRole('row').filter({ hasText: args.model });
    await see(row, `${args.model} in the registry`);
    await see(row.getByRole('cell', { name: 'embedding', exact: true }), 'its kind');
    await see(row.getByRole('cell', { name: 'onnx', exact: true }), 'its format');
    await see(row.getByRole('cell', { name: /^(—|[\d.]+ [KMGT]?i?B)$/ }), 'its size (none counted for a bundled model)');
    await snap('registry');
    await page.getByRole('button', { name: `Load ${args.model}` }).click();
    const worker = page.getByRole('table', { name: 'Workers' }).getByRole('row').filter({ hasText: args.model });
    await seeWithin(worker.getByRole('cell', { name: 'loaded', exact: true }), `${args.model} loaded in a worker`, WORK_MS);
    await see(worker.getByRole('cell', { name: /^\d+$/ }), "the worker's process");
    const pid = Number(await worker.getByRole('cell', { name: /^\d+$/ }).textContent());
    await page.getByRole('button', { name: `Worker log of ${args.model}` }).click();
    const log = page.getByRole('region', { name: `Log of ${args.modelId}` });
    await see(log.locator('pre.log'), "the worker's log");
    await snap('worker');
    return { pid };
  },

  async 'built-in-model-kept'() {
    await signIn(args.token);
    await nav().getByRole('link', { name: 'Models' }).click();
    const row = page.getByRole('table', { name: 'Model registry' }).getByRole('row').filter({ hasText: args.model });
    await see(row.getByRole('button', { name: `Log of ${args.model}` }), `the actions on ${args.model}`);
    await gone(row.getByRole('button', { name: 'Delete' }), `Delete on the built-in ${args.model}`);
    await snap('built-in');
    return {};
  },

  async 'download-model'() {
    await signIn(args.token);
    await nav().getByRole('link', { name: 'Models' }).click();
    const form = page.getByRole('form', { name: 'Register a model' });
    await form.getByLabel('Source').selectOption('model_hub');
    await form.getByRole('textbox', { name: 'Model', exact: true }).fill(args.repository);
    await form.getByLabel('Display name').fill(args.name);
    await form.getByLabel('Engine').selectOption('embedding');
    await form.getByRole('button', { name: 'Register' }).click();
    await see(page.getByText(`${args.name} is downloading.`), 'the download started');
    const bar = page.getByRole('progressbar', { name: `Download of ${args.name}` });
    await see(bar, 'the progress bar of the download');
    await snap('downloading');
    const seen = await bar.evaluate((e) => ({ value: e.value, max: e.max }));
    const row = page.getByRole('table', { name: 'Model registry' }).getByRole('row').filter({ hasText: args.name });
    await seeWithin(row.getByText('downloaded', { exact: true }), 'the model downloaded', WORK_MS);
    await gone(bar, 'the progress bar after the download');
    await see(row.getByRole('button', { name: 'Delete' }), 'Delete on a model that is not built in');
    await snap('downloaded');
    return seen;
  },

  async 'unload-model'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Models' }).click();
    await page.getByRole('button', { name: `Unload ${args.model}` }).click();
    await see(page.getByText(`${args.model} unloaded.`), 'the model unloaded');
    await see(page.getByText('No model is loaded'), 'no worker left');
    await snap('unloaded');
    return {};
  },

  async 'deploy-model'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Deployments' }).click();
    const form = page.getByRole('form', { name: 'New deployment' });
    await see(form, 'the deployment form');
    // a name that is not a DNS label is refused beside the Name field before anything is sent
    await form.getByLabel('Name').fill('Not A Label');
    await form.getByRole('button', { name: 'Deploy' }).click();
    await see(form.locator('#field-name-error'), 'the name refused beside the Name field');
    await form.getByLabel('Name').fill(args.name);
    await form.getByLabel('Model').selectOption(args.modelId);
    await form.getByLabel('Cluster').selectOption({ label: 'local' });
    await form.getByLabel('Replicas').fill('1');
    await snap('form');
    await form.getByRole('button', { name: 'Deploy' }).click();
    await see(page.getByRole('heading', { name: `Deployment ${args.name}` }), "the deployment's page");
    const first = await status().textContent();
    // the page is not reloaded: what follows comes from the deployment's event stream
    await seeWithin(page.locator('.status[aria-live]', { hasText: /^running$/ }), 'the deployment running', WORK_MS);
    await see(page.getByText('1 of 1 replicas ready'), 'one ready replica');
    await see(page.getByText(args.endpoint), 'the endpoint');
    await see(page.getByRole('table', { name: `Replicas of ${args.name}` }).getByRole('cell', { name: 'ready', exact: true }), 'the replica ready');
    await snap('running');
    return { id: decodeURIComponent(page.url().split('/').pop()), first };
  },

  async 'scale-deployment'() {
    await openDeployment(args.name);
    const form = page.getByRole('form', { name: `Scale ${args.name}` });
    await form.getByLabel('Replicas').fill('2');
    await form.getByRole('button', { name: 'Scale' }).click();
    await see(page.getByText(`Scaling ${args.name} to 2 replicas.`), 'the scaling started');
    const replicas = page.getByRole('table', { name: `Replicas of ${args.name}` });
    await seeWithin(page.getByText('2 of 2 replicas ready'), 'two ready replicas', WORK_MS);
    await see(page.locator('.status[aria-live]', { hasText: /^running$/ }), 'the deployment running again');
    const ready = replicas.getByRole('cell', { name: 'ready', exact: true });
    await see(ready.nth(1), 'two ready replicas in the replicas table');
    await counted(ready, 2, 'ready replicas in the replicas table');
    await snap('scaled');
    return {};
  },

  async 'rate-limit-deployment'() {
    await openDeployment(args.name);
    const form = page.getByRole('form', { name: `Rate limit of ${args.name}` });
    await form.getByLabel('Algorithm').selectOption('fixed_window');
    await form.getByLabel('Requests').fill(String(args.rate));
    await form.getByLabel('Per').selectOption('minute');
    await form.getByRole('button', { name: 'Save rate limit' }).click();
    await see(page.getByText(`${args.rate} per minute (fixed window)`), 'the rate limit');
    await snap('limited');
    return {};
  },

  async 'delete-deployment-in-use'() {
    await openDeployment(args.name);
    await page.getByRole('button', { name: `Delete ${args.name}` }).click();
    await page.getByRole('button', { name: `Yes, delete ${args.name}` }).click();
    const refusal = page.getByRole('alert').filter({ hasText: args.router });
    await see(refusal, 'the refusal naming the router that uses it');
    await snap('in-use');
    return { message: await refusal.locator('p').first().textContent() };
  },

  async 'delete-deployment'() {
    await openDeployment(args.name);
    await page.getByRole('button', { name: `Delete ${args.name}` }).click();
    await page.getByRole('button', { name: `Yes, delete ${args.name}` }).click();
    await see(page.getByRole('heading', { name: 'Deployments' }), 'the list of deployments');
    await see(page.getByText('No deployment yet.'), 'no deployment left');
    await snap('deleted');
    return {};
  },

  async 'local-cluster-health'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Clusters' }).click();
    await see(page.getByRole('table', { name: 'Clusters' }).getByRole('row').filter({ hasText: 'local' }), 'the local cluster');
    await page.getByRole('button', { name: 'Health of local' }).click();
    const health = page.getByRole('region', { name: 'Health of local' });
    const shown = health.locator('.health');
    await see(shown, 'its status');
    await see(health.getByText('Nodes'), 'its nodes');
    const facts = {};
    for (const dt of await health.locator('dt').all()) facts[await dt.textContent()] = await dt.locator('xpath=following-sibling::dd[1]').textContent();
    await snap('health');
    return { status: await shown.textContent(), nodes: facts.Nodes, cpu: facts.CPU, gpus: facts.GPUs };
  },

  async 'kubernetes-cluster'() {
    await signIn(args.token);
    await nav().getByRole('link', { name: 'Clusters' }).click();
    const form = page.getByRole('form', { name: 'Add a Kubernetes cluster' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill(args.name);
    const kubeconfig = form.locator('#field-kubeconfig');
    await kubeconfig.fill(args.kubeconfig);
    const masked = await kubeconfig.evaluate((e) => getComputedStyle(e).getPropertyValue('-webkit-text-security'));
    if (masked !== 'disc') throw new Error(`the kubeconfig is not masked (${masked})`);
    await snap('form');
    await form.getByRole('button', { name: 'Add cluster' }).click();
    await see(page.getByText(`${args.name} added`), 'the cluster added');
    await until(async () => (await kubeconfig.inputValue()) === '', 'the kubeconfig gone from the page');
    const row = page.getByRole('table', { name: 'Clusters' }).getByRole('row').filter({ hasText: args.name });
    await see(row.getByRole('cell', { name: 'kubernetes', exact: true }), 'the cluster in the list');
    await row.getByRole('button', { name: `Health of ${args.name}` }).click();
    const health = page.getByRole('region', { name: `Health of ${args.name}` });
    await see(health.locator('.health'), 'its status');
    const reasons = health.getByRole('list', { name: /^Why / });
    await see(reasons.getByText(args.reason), 'why it is not healthy');
    await snap('health');
    const status = await health.locator('.health').textContent();
    const gpus = await health.locator('dt', { hasText: 'GPUs' }).locator('xpath=following-sibling::dd[1]').textContent();
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: `Delete ${args.name}` }).click();
    await see(page.getByText(`${args.name} deleted.`), 'the cluster deleted');
    await gone(page.getByRole('row').filter({ hasText: args.name }), 'the deleted cluster');
    return { status, gpus };
  },

  async 'member-models'() {
    await signIn(args.token);
    for (const section of ['Models', 'Deployments', 'Clusters']) await see(nav().getByRole('link', { name: section }), `the ${section} link`);
    await nav().getByRole('link', { name: 'Deployments' }).click();
    await see(page.getByRole('table', { name: 'Deployments' }).getByRole('link', { name: args.name }), "its project's deployment");
    await nav().getByRole('link', { name: 'Models' }).click();
    await see(page.getByRole('table', { name: 'Model registry' }), 'the registry');
    await gone(page.getByRole('form', { name: 'Register a model' }), 'the form to register models to a member');
    await gone(page.getByRole('button', { name: /^Load / }), 'Load to a member');
    await nav().getByRole('link', { name: 'Clusters' }).click();
    await see(page.getByRole('button', { name: 'Health of local' }), 'the health of local');
    await gone(page.getByRole('form', { name: 'Add a Kubernetes cluster' }), 'the form to add clusters to a member');
    await snap('member');
    return {};
  },
};
