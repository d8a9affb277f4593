// What every flow starts with, as an integrator writes it once: the client
// made from the types openapi-typescript generates, with the key; a
// maker of Idempotency-Keys; and a check that stops the flow saying what
// went wrong.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is required`);
  }
  return value;
}

export const baseUrl = required("KONTERA_URL");
export const token = required("KONTERA_KEY");
export const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
export const key = () => crypto.randomUUID();

export function check(ok: boolean, what: string, detail?: unknown): void {
  if (!ok) {
    console.error(`FAIL ${what}`, JSON.stringify(detail));
    process.exit(1);
  }
  console.log(`ok ${what}`);
}
