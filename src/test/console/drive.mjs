// Drives the console in Debian's chromium through playwright-core, one scenario per run, for the console's browser
// tests. Scenarios live in scenarios/*.mjs (one module per area, each exporting `scenarios`); SCENARIO names one.
// Every step waits for what the page must show and fails with what it was looking for; the last line printed is
// a JSON object of what the scenario learnt (a webhook address, say) for the Java side.
import { readdirSync } from 'node:fs';
import { args, browser, inArea, problems, scenario, snap } from './harness.mjs';

async function find(name) {
  const folder = new URL('./scenarios/', import.meta.url);
  const found = [];
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.mjs')).sort()) {
    const { scenarios } = await import(new URL(file, folder).href);
    if (scenarios[name]) found.push({ run: scenarios[name], area: file.slice(0, -'.mjs'.length) });
  }
  if (found.length !== 1) throw new Error(`${found.length} scenarios are named ${name}`);
  inArea(found[0].area);
  return found[0].run;
}

let result;
try {
  const run = await find(scenario);
  result = await run(args);
  if (problems.length > 0) throw new Error(problems.join('\n'));
} catch (error) {
  await snap('failed').catch(() => {});
  console.error(`${scenario}: ${error.message}`);
  await browser.close();
  process.exit(1);
}
await browser.close();
console.log(JSON.stringify(result));
