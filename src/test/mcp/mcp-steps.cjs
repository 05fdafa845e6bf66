// Uses an agent's MCP endpoint with the official MCP TypeScript SDK client, as an agent framework would. Reads JSON on
// its input: {"url": ..., "token": ..., "steps": [{"listTools": {}} | {"callTool": {"name", "arguments"}} |
// {"listResources": {"cursor"}} | {"readResource": {"uri"}} | {"listResourceTemplates": {}} | {"listPrompts": {}} |
// {"getPrompt": {"name", "arguments"}}]}; connects (initialize), runs the steps in order and prints
// {"results": [...]}, one per step: what the SDK returned, or {"error": {"code", "message"}} when it raised.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const { url, token, steps } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: "Bearer " + token } },
  });
  const client = new Client({ name: "arbor-test-agent", version: "1" });
  await client.connect(transport);
  const results = [];
  for (const step of steps) {
    const [op, args] = Object.entries(step)[0];
    try {
      const options = { timeout: 30000 };
      // callTool takes the result's schema before the options
      results.push(await (op === "callTool" ? client.callTool(args, undefined, options) : client[op](args, options)));
    } catch (e) {
      results.push({ error: { code: e.code ?? null, message: String(e.message) } });
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify({ results }) + "\n");
}

main().catch((e) => {
  process.stderr.write(String(e.stack || e) + "\n");
  process.exit(1);
});
