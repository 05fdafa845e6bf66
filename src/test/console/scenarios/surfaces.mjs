// The contract's four surfaces: signing in, what a member is offered, a gateway from the registry whose tools an
// agent gets, and a shared event connection's signed delivery in its log.
import { args, base, gone, nav, page, see, signIn, snap, until } from '../harness.mjs';

export const scenarios = {
  async 'admin-sign-in'() {
    await signIn(args.token);
    for (const section of ['Connectors', 'Connections', 'Triggers', 'Agent connections']) {
      await see(nav().getByRole('link', { name: section }), `the ${section} link`);
    }
    await see(page.getByText('Admin'), 'the role');
    await snap('signed-in');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await see(page.getByLabel('Token'), 'the Token field after signing out');
    await until(async () => (await page.evaluate(() => sessionStorage.length)) === 0, 'the token forgotten after signing out');
    return {};
  },

  async 'wrong-token'() {
    await page.goto(base + '/console');
    await page.getByLabel('Token').fill('arb_not_a_token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // the envelope's message beside the field, and the field marked invalid
    const error = page.locator('#field-token-error');
    await see(error, "the server's message beside the Token field");
    await until(async () => (await page.getByLabel('Token').getAttribute('aria-invalid')) === 'true', 'the Token field marked invalid');
    await snap('refused');
    return { message: await error.textContent() };
  },

  async 'member-sign-in'() {
    await signIn(args.token);
    await see(nav().getByRole('link', { name: 'Triggers' }), 'the Triggers link');
    await see(nav().getByRole('link', { name: 'Agent connections' }), 'the Agent connections link');
    for (const adminOnly of ['Connectors', 'Connections']) {
      await gone(nav().getByRole('link', { name: adminOnly, exact: true }), `the ${adminOnly} link to a member`);
    }
    await snap('member');
    await page.goto(base + '/console/connectors');
    await see(page.getByText('This token may not use Connectors'), 'the refusal of an admin page');
    return {};
  },

  async 'add-gateway'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Connectors' }).click();
    await page.getByLabel('Search the registry').fill(args.connector);
    await page.getByRole('button', { name: `Add ${args.connector}` }).click();
    const form = page.getByRole('form', { name: `Add ${args.connector}` });
    await see(form, 'the gateway form');
    await form.getByLabel('Name').fill(args.name);
    await form.getByLabel('Projects').selectOption({ label: args.project });
    await snap('form');
    await form.getByRole('button', { name: 'Add gateway' }).click();
    await see(page.getByRole('heading', { name: 'Connections' }), 'the Connections tab');
    const row = page.getByRole('row').filter({ hasText: args.name });
    await see(row, 'the new gateway in the list');
    await see(row.getByText('enabled'), 'the gateway enabled');
    await see(row.getByText(args.project), "the gateway's project");
    await snap('added');
    return {};
  },

  async 'add-custom-connection'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Connections', exact: true }).click();
    const form = page.getByRole('form', { name: 'Add a custom connection' });
    await see(form, 'the custom connection form');
    await form.getByLabel(/^Name( \*)?$/).fill(args.name);
    await form.getByLabel(/^URL( \*)?$/).fill(args.url);
    await form.getByLabel('Transport').selectOption('streamable_http');
    await form.getByLabel('Authorization').selectOption('headers');
    await form.getByRole('button', { name: 'Add auth headers' }).click();
    await form.getByLabel('Auth headers 1 name').fill('Authorization');
    await form.getByLabel('Auth headers 1 value').fill(args.secret);
    await form.getByLabel('Projects').selectOption({ label: args.project });
    await snap('form');
    await form.getByRole('button', { name: 'Add connection' }).click();
    await see(page.getByText(`${args.name} added.`), 'the connection added');
    const row = page.getByRole('table', { name: 'Configured gateways' }).getByRole('row').filter({ hasText: args.name });
    await see(row.getByText(`custom · ${args.url}`), 'the custom server in the list');
    await see(row.getByText(args.project), "the connection's project");
    await see(row.getByText('enabled'), 'the connection enabled');
    // a new, empty form: the secret typed for this one is not kept on the page
    await until(async () => (await form.getByLabel(/^Name( \*)?$/).inputValue()) === '', 'an empty form after adding');
    await gone(form.getByLabel('Auth headers 1 value'), 'the header secret after adding');
    await snap('added');
    return {};
  },

  async 'custom-connection-bad-url'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Connections', exact: true }).click();
    const form = page.getByRole('form', { name: 'Add a custom connection' });
    await form.getByLabel(/^Name( \*)?$/).fill(args.name);
    await form.getByLabel(/^URL( \*)?$/).fill(args.url);
    await form.getByRole('button', { name: 'Add connection' }).click();
    // the envelope's detail for `url` beside the URL field, which is marked invalid and gets the focus
    const error = form.locator('#custom-field-url-error');
    await see(error, "the server's message beside the URL field");
    await until(async () => (await form.getByLabel(/^URL( \*)?$/).getAttribute('aria-invalid')) === 'true', 'the URL field marked invalid');
    await until(async () => (await page.evaluate(() => document.activeElement?.id)) === 'custom-field-url', 'the URL field focused');
    await gone(form.locator('.field.invalid:not([data-param="url"])'), 'a problem at another field');
    await snap('refused');
    return { message: await error.textContent() };
  },

  async 'attach-tools'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Agent connections' }).click();
    await page.getByLabel('Agent (prompt id)').fill(args.agent);
    await page.getByRole('button', { name: 'Open' }).click();
    await see(page.getByRole('heading', { name: `Agent ${args.agent}` }), "the agent's panel");
    await page.getByRole('button', { name: `Fetch tools of ${args.gateway}` }).click();
    await see(page.getByText(/Fetched \d+ tools\./), 'how many tools were fetched');
    const tools = page.getByRole('group', { name: `Tools of ${args.gateway}` });
    for (const tool of args.tools) await tools.getByLabel(tool, { exact: true }).check();
    await snap('chosen');
    await page.getByRole('form', { name: `Attach tools of ${args.gateway}` }).getByRole('button', { name: `Attach to ${args.agent}` }).click();
    const attached = page.getByRole('list', { name: `Tools of ${args.gateway} attached` });
    for (const tool of args.tools) await see(attached.getByText(tool, { exact: true }), `${tool} attached`);
    await snap('attached');
    await attached.getByRole('button', { name: `Remove ${args.tools[1]}` }).click();
    await see(page.getByText(`${args.tools[1]} removed from ${args.agent}.`), 'the removal');
    await see(attached.getByText(args.tools[0], { exact: true }), `${args.tools[0]} still attached`);
    await gone(attached.getByText(args.tools[1], { exact: true }), `${args.tools[1]} attached`);
    await snap('one-left');
    return {};
  },

  async 'oauth-attach-detach'() {
    await signIn(args.token, args.project);
    await page.goto(`${base}/console/agents/${encodeURIComponent(args.agent)}`);
    await see(page.getByText('unauthorized'), 'the gateway not yet authorized');
    await snap('unauthorized');
    // the authorization server consents at once and sends the browser back to the console
    await page.getByRole('button', { name: `Authorize ${args.gateway}` }).click();
    await see(page.getByText(`${args.gateway} is authorized.`), 'the authorization finished');
    await snap('authorized');
    await page.getByRole('link', { name: 'Back to the agent' }).click();
    await see(page.locator('.status', { hasText: /^authorized$/ }), 'the gateway authorized');
    await page.getByRole('button', { name: `Fetch tools of ${args.gateway}` }).click();
    await see(page.getByText(/Fetched \d+ tools\./), 'how many tools were fetched');
    const tools = page.getByRole('group', { name: `Tools of ${args.gateway}` });
    for (const tool of args.tools) await tools.getByLabel(tool, { exact: true }).check();
    await page.getByRole('form', { name: `Attach tools of ${args.gateway}` }).getByRole('button', { name: `Attach to ${args.agent}` }).click();
    const attached = page.getByRole('list', { name: `Tools of ${args.gateway} attached` });
    for (const tool of args.tools) await see(attached.getByText(tool, { exact: true }), `${tool} attached`);
    await snap('attached');
    await page.getByRole('button', { name: `Detach ${args.gateway}` }).click();
    await see(page.getByText(`${args.gateway} detached.`), 'the gateway detached');
    await see(page.getByText('Nothing attached to this agent.'), 'the agent with nothing attached');
    await snap('detached');
    return {};
  },

  async 'event-connection'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Triggers' }).click();
    const form = page.getByRole('form', { name: 'New event connection' });
    await form.getByLabel('Provider').selectOption({ label: args.provider });
    // sent without a name: the server's message for `name` appears beside the Name field, which gets the focus
    await form.getByRole('button', { name: 'Create connection' }).click();
    await see(form.locator('#field-name-error'), "the server's message beside the Name field");
    await until(async () => (await page.evaluate(() => document.activeElement?.id)) === 'field-name', 'the Name field focused');
    await snap('refused');
    await form.getByLabel('Name').fill(args.name);
    await snap('form');
    await form.getByRole('button', { name: 'Create connection' }).click();
    const created = page.getByRole('region', { name: 'New connection' });
    await see(created.getByText('Webhook URL'), 'the webhook address');
    const codes = created.locator('code');
    const webhookUrl = await codes.nth(0).textContent();
    const signingSecret = (await codes.count()) > 1 ? await codes.nth(1).textContent() : null;
    await see(page.getByRole('row').filter({ hasText: args.name }), 'the connection in the list');
    await snap('created');
    return { webhook_url: webhookUrl, signing_secret: signingSecret };
  },

  async 'delivery-log'() {
    await signIn(args.token, args.project);
    await nav().getByRole('link', { name: 'Triggers' }).click();
    await page.getByRole('button', { name: `Deliveries of ${args.name}` }).click();
    const log = page.getByRole('table', { name: `Deliveries of ${args.name}` });
    const row = log.getByRole('row').filter({ hasText: args.type });
    await see(row, `a delivery of ${args.type}`);
    await see(row.getByText('accepted'), 'the delivery accepted');
    await see(row.getByText(/^valid/), 'its signature valid');
    await snap('log');
    return {};
  },
};
