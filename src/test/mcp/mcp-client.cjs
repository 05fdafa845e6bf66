// The official MCP TypeScript SDK's client, as an agent framework uses it: reads {url, token, calls: [{name,
// arguments}]} on its input, connects over Streamable HTTP with the bearer token, makes the calls in order on one
// session, and prints what each answered (its result, or its error's code, message and data) with the session id.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

async function main() {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  const input = JSON.parse(text);
  const headers = input.token ? { Authorization: `Bearer ${input.token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(input.url), { requestInit: { headers } });
  const client = new Client({ name: 'arbor-test', version: '1' });
  await client.connect(transport);
  const answers = [];
  for (const call of input.calls) {
    try {
      answers.push({ result: await client.callTool({ name: call.name, arguments: call.arguments ?? {} }) });
    } catch (e) {
      answers.push({ error: { code: e.code ?? null, message: String(e.message), data: e.data ?? null } });
    }
  }
  const sessionId = transport.sessionId ?? null;
  await client.close();
  process.stdout.write(JSON.stringify({ sessionId, answers }));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
