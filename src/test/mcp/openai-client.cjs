// Calls Arbor with the official OpenAI client, as an application would. Usage:
//   node openai-client.cjs <chat|stream|embeddings> <base URL> <model>   (the token in ARBOR_TOKEN)
// Prints one JSON line per result as it comes: {"answer": ...}, one {"chunk": ...} per streamed chunk (so a reader
// sees each before the stream ends), {"done": true} after a stream, or {"error": {...}} when the client raised one.
const OpenAI = require("openai");

async function main() {
  const [op, baseURL, model] = process.argv.slice(2);
  const client = new OpenAI({ baseURL, apiKey: process.env.ARBOR_TOKEN, maxRetries: 0, timeout: 30000 });
  const print = (value) => process.stdout.write(JSON.stringify(value) + "\n");
  const messages = [{ role: "user", content: "Say hello." }];
  try {
    if (op === "chat") {
      const answer = await client.chat.completions.create({ model, messages });
      print({ answer: { model: answer.model, content: answer.choices[0].message.content, usage: answer.usage } });
    } else if (op === "stream") {
      const stream = await client.chat.completions.create({ model, messages, stream: true });
      for await (const chunk of stream) {
        print({ chunk: { model: chunk.model, content: chunk.choices[0]?.delta?.content ?? null, usage: chunk.usage ?? null } });
      }
      print({ done: true });
    } else if (op === "embeddings") {
      const answer = await client.embeddings.create({ model, input: "hello" });
      print({ answer: { model: answer.model, embedding: answer.data[0].embedding, usage: answer.usage } });
    } else {
      throw new Error("unknown operation " + op);
    }
  } catch (e) {
    print({
      error: {
        class: e.constructor.name,
        api_error: e instanceof OpenAI.APIError,
        status: e.status ?? null,
        code: e.code ?? null,
        type: e.type ?? null,
        message: e.message,
      },
    });
  }
}

main();
