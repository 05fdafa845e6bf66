// Verifies Standard Webhooks deliveries with the standard's own library, as a receiver of Arbor's triggers would.
// Reads a JSON array of {secret, headers, body} on stdin; prints, for each, {valid} or {valid: false, error}.
const { Webhook } = require("standardwebhooks");

let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const results = JSON.parse(input).map((c) => {
    try {
      new Webhook(c.secret).verify(c.body, c.headers);
      return { valid: true };
    } catch (e) {
      return { valid: false, error: String(e.message || e) };
    }
  });
  process.stdout.write(JSON.stringify(results));
});
