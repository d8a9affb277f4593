// Verifies a captured Kontera webhook delivery the way receivers do: with
// Stripe's library (X-Kontera-Signature is Stripe's scheme, keyed by the
// secret string as given) and with Standard Webhooks' (webhook-id,
// webhook-timestamp, webhook-signature, keyed by the decoded secret).
// Each must accept the delivery and refuse a tampered body, another
// secret and a signature six minutes old. Usage: node verify-webhook.mjs
// capture.json; exits non-zero on the first check that does not hold.
import { readFileSync } from "node:fs";
import Stripe from "stripe";
import { Webhook } from "standardwebhooks";

const c = JSON.parse(readFileSync(process.argv[2], "utf8"));
const stripe = new Stripe("sk_test_kontera_contract");
const tampered = c.body.replace(/}$/, ' }');
if (tampered === c.body) throw new Error("could not tamper with the body");
let failures = 0;

function check(name, shouldPass, fn) {
  let passed = true;
  let why = "";
  try {
    fn();
  } catch (e) {
    passed = false;
    why = e.message;
  }
  const ok = passed === shouldPass;
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}: ${passed ? "verified" : "refused (" + why + ")"}`);
}

const stripeVerify = (body, header, secret) => stripe.webhooks.constructEvent(body, header, secret, 300);
check("stripe: the delivery", true, () => {
  const ev = stripeVerify(c.body, c.signature, c.secret);
  if (ev.id !== c.webhook_id) throw new Error(`event id ${ev.id}`);
});
check("stripe: a tampered body", false, () => stripeVerify(tampered, c.signature, c.secret));
check("stripe: another secret", false, () => stripeVerify(c.body, c.signature, c.other_secret));
check("stripe: six minutes old", false, () => stripeVerify(c.body, c.old.signature, c.secret));

const headers = (h) => ({ "webhook-id": c.webhook_id, "webhook-timestamp": h.webhook_timestamp, "webhook-signature": h.webhook_signature });
check("standardwebhooks: the delivery", true, () => new Webhook(c.secret).verify(c.body, headers(c)));
check("standardwebhooks: a tampered body", false, () => new Webhook(c.secret).verify(tampered, headers(c)));
check("standardwebhooks: another secret", false, () => new Webhook(c.other_secret).verify(c.body, headers(c)));
check("standardwebhooks: six minutes old", false, () => new Webhook(c.secret).verify(c.body, headers(c.old)));

process.exit(failures ? 1 : 0);
