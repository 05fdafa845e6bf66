// What every scenario drives with: Debian's chromium through playwright-core, one page, and the steps the scenarios
// share (wait until the page shows something, keep a screenshot, sign in).
// Input: ARBOR_URL (the server), SHOTS (a folder for screenshots: each area's go in a folder of its own, named after
// its scenarios' module), SCENARIO (its name), ARGS (JSON).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const base = process.env.ARBOR_URL;
export const shots = process.env.SHOTS;
export const scenario = process.env.SCENARIO;
export const args = JSON.parse(process.env.ARGS ?? '{}');
const STEP_MS = 15_000;

export const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
export const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
page.setDefaultTimeout(STEP_MS);
export const problems = [];
// a refused call is logged by the browser as a failed load: the scenarios assert what the page shows of it instead
page.on('console', (m) => {
  if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push('console: ' + m.text());
});
page.on('pageerror', (e) => problems.push('page error: ' + e.message));
let shot = 0;

export async function see(locator, what) {
  try {
    await locator.first().waitFor({ state: 'visible' });
  } catch {
    throw new Error(`the page does not show ${what}`);
  }
}

/** Waits until nothing matches: a list redrawn after a change may drop a row a render after the message shows. */
export async function gone(locator, what) {
  try {
    await locator.first().waitFor({ state: 'detached' });
  } catch {
    throw new Error(`the page still shows ${what}`);
  }
}

/**
 * Waits until `holds` (an async check of the page: a count, a field's value, an attribute) is true: a value read once
 * may still be the one before the render that changes it.
 */
export async function until(holds, what) {
  const end = Date.now() + STEP_MS;
  for (;;) {
    if (await holds()) return;
    if (Date.now() > end) throw new Error(`the page does not show ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until exactly `count` elements match. */
export async function counted(locator, count, what) {
  let seen = 0;
  try {
    await until(async () => (seen = await locator.count()) === count, what);
  } catch {
    throw new Error(`the page shows ${seen} ${what}, not ${count}`);
  }
}

let area = 'unknown';

/** Screenshots go to the folder of the scenarios' area (their module's name). */
export function inArea(name) {
  area = name;
  mkdirSync(join(shots, area), { recursive: true });
}

export async function snap(name) {
  shot += 1;
  await page.screenshot({ path: join(shots, area, `${scenario.replaceAll('/', '-')}-${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
}

export async function signIn(token, project) {
  await page.goto(base + '/');
  if (!page.url().endsWith('/console')) throw new Error(`/ led to ${page.url()}, not /console`);
  await see(page.getByLabel('Token'), 'the Token field');
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await see(page.getByRole('navigation', { name: 'Sections' }), 'the navigation');
  if (project) await page.getByLabel('Project', { exact: true }).selectOption({ label: project });
}

export const nav = () => page.getByRole('navigation', { name: 'Sections' });
