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

// fail stops the flow, saying what went wrong.
export function fail(what: string, detail?: unknown): never {
  console.error(`FAIL ${what}`, JSON.stringify(detail));
  process.exit(1);
}

export function check(ok: boolean, what: string, detail?: unknown): void {
  if (!ok) {
    fail(what, detail);
  }
  console.log(`ok ${what}`);
}

// fileNamed serialises a multipart body's file part under name, as a
// browser's form would: openapi-fetch's bodySerializer.
export function fileNamed(name: string) {
  return (body: { file?: unknown }) => {
    const form = new FormData();
    form.append("file", body.file as Blob, name);
    return form;
  };
}

// made stops the flow unless a write answered its record (not a dry
// run's preview), and narrows to it: one check, no cast.
export function made<T extends { dry_run?: boolean }>(data: T | undefined, what: string, error?: unknown): Exclude<T, { dry_run: true }> {
  if (data === undefined || data.dry_run) {
    fail(what, error ?? data);
  }
  return data as Exclude<T, { dry_run: true }>;
}

// settled polls an operation (a 202's operation_id) every half second
// until it ends, as its poll_url asks, and answers it: the type narrows
// on op.type to that operation's result.
export async function settled(operationId: string) {
  for (let i = 0; i < 600; i++) {
    const polled = await api.GET("/api/v1/operations/{operationId}", { params: { path: { operationId } } });
    const op = polled.data?.data;
    if (op === undefined) {
      fail("poll an operation", polled.error);
    }
    if (op.status !== "queued" && op.status !== "running") {
      return op;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  fail(`operation ${operationId} did not end`);
}
