// Signs webhook deliveries as each provider does, with the provider's own library where it publishes one that signs
// (GitHub, Stripe, Standard Webhooks, Svix, Twilio) and with the algorithm of the provider's documentation elsewhere.
// Reads a JSON array of {provider, secret, body, timestamp, id, url, params} on stdin; prints the headers of each.
const crypto = require("node:crypto");
const Stripe = require("stripe");
const { Webhook: StandardWebhook } = require("standardwebhooks");
const { Webhook: SvixWebhook } = require("svix");
const twilio = require("twilio");

const stripe = new Stripe("sk_test_signing_only");
const hmac = (secret, data, encoding) => crypto.createHmac("sha256", secret).update(data).digest(encoding);

async function sign(c, octokit) {
  const at = new Date(c.timestamp * 1000);
  switch (c.provider) {
    case "github":
      return { "X-Hub-Signature-256": await octokit.sign(c.secret, c.body) };
    case "bitbucket":
    case "jira":
      return { "X-Hub-Signature": await octokit.sign(c.secret, c.body) };
    case "stripe":
      return { "Stripe-Signature": stripe.webhooks.generateTestHeaderString({ payload: c.body, secret: c.secret, timestamp: c.timestamp }) };
    case "calendly":
      return { "Calendly-Webhook-Signature": `t=${c.timestamp},v1=${hmac(c.secret, `${c.timestamp}.${c.body}`, "hex")}` };
    case "slack":
      return {
        "X-Slack-Request-Timestamp": String(c.timestamp),
        "X-Slack-Signature": "v0=" + hmac(c.secret, `v0:${c.timestamp}:${c.body}`, "hex"),
      };
    case "standard_webhooks":
      return {
        "webhook-id": c.id,
        "webhook-timestamp": String(c.timestamp),
        "webhook-signature": new StandardWebhook(c.secret).sign(c.id, at, c.body),
      };
    case "clerk":
      return {
        "svix-id": c.id,
        "svix-timestamp": String(c.timestamp),
        "svix-signature": new SvixWebhook(c.secret).sign(c.id, at, c.body),
      };
    case "twilio":
      return { "X-Twilio-Signature": twilio.getExpectedTwilioSignature(c.secret, c.url, c.params) };
    case "shopify":
      return { "X-Shopify-Hmac-Sha256": hmac(c.secret, c.body, "base64") };
    case "typeform":
      return { "Typeform-Signature": "sha256=" + hmac(c.secret, c.body, "base64") };
    case "linear":
      return { "Linear-Signature": hmac(c.secret, c.body, "hex") };
    case "sentry":
      return { "Sentry-Hook-Signature": hmac(c.secret, c.body, "hex") };
    case "pagerduty":
      // during a secret change PagerDuty sends one signature per secret; this one carries a stale one first
      return { "X-PagerDuty-Signature": "v1=" + hmac("retired", c.body, "hex") + ",v1=" + hmac(c.secret, c.body, "hex") };
    case "circleci":
      return { "circleci-signature": "v1=" + hmac(c.secret, c.body, "hex") };
    case "zendesk": {
      const timestamp = at.toISOString().replace(/\.\d{3}Z$/, "Z");
      return {
        "X-Zendesk-Webhook-Signature-Timestamp": timestamp,
        "X-Zendesk-Webhook-Signature": hmac(c.secret, timestamp + c.body, "base64"),
      };
    }
    case "gitlab":
      return { "X-Gitlab-Token": c.secret };
    case "opsgenie":
    case "datadog":
    case "grafana":
    case "alertmanager":
      return { Authorization: "Bearer " + c.secret };
    default:
      throw new Error("no signer for " + c.provider);
  }
}

(async () => {
  const octokit = await import("@octokit/webhooks-methods");
  const cases = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
  const signed = [];
  for (const c of cases) {
    signed.push(await sign(c, octokit));
  }
  process.stdout.write(JSON.stringify(signed));
})().catch((error) => {
  console.error(error.stack);
  process.exit(1);
});
