// An agent's first minutes through MCP, with the official TypeScript SDK:
// connect to /mcp with the key, list the tools (one per operation), read,
// preview, write and retry safely, and be refused as the REST API
// refuses.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { baseUrl, check, token } from "./client.js";

const readKey = process.env.KONTERA_READ_KEY;
const testKey = process.env.KONTERA_TEST_KEY;
const operations = Number(process.env.KONTERA_OPERATIONS);
if (!readKey || !testKey || !operations) {
  throw new Error("KONTERA_READ_KEY, KONTERA_TEST_KEY and KONTERA_OPERATIONS are required");
}

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "kontera-consumer", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`),
    { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

type Envelope = { data?: Record<string, unknown>; error?: { code: string; recovery_hint?: string; docs_url?: string } };
// A call's result: the REST answer's envelope as its structured content.
function envelope(res: unknown): Envelope {
  return ((res as { structuredContent?: unknown }).structuredContent ?? {}) as Envelope;
}

const agent = await connect(token);
const names = new Set<string>();
let cursor: string | undefined;
do {
  const page = await agent.listTools({ cursor });
  for (const t of page.tools) {
    names.add(t.name);
  }
  cursor = page.nextCursor;
} while (cursor);
check(names.size === operations, `a tool per operation (${names.size} of ${operations})`);
const { tools } = await agent.listTools();
const commit = tools.find((t) => t.name === "commitJournalEntry");
const balance = tools.find((t) => t.name === "getTrialBalance");
check(commit?.annotations?.destructiveHint === true && commit.annotations.readOnlyHint === false &&
  balance?.annotations?.readOnlyHint === true, "annotations from the flags", [commit?.annotations, balance?.annotations]);

const companies = await agent.callTool({ name: "listCompanies", arguments: {} });
const list = envelope(companies).data as unknown as Array<{ id: string }> | undefined;
check(!companies.isError && Array.isArray(list) && list.length === 1, "a read: the key's company", companies.structuredContent);
const companyId = list![0].id;

const anna = { name: "Anna Svensson", customer_type: "individual" };
const dry = await agent.callTool({ name: "createCustomer", arguments: { companyId, dry_run: true, body: anna } });
check(!dry.isError && envelope(dry).data?.dry_run === true, "a dry run previews", dry.structuredContent);

const made = await agent.callTool({ name: "createCustomer", arguments: { companyId, body: anna } });
const key = made._meta?.["kontera/idempotency_key"] as string | undefined;
const id = envelope(made).data?.id;
check(!made.isError && typeof key === "string" && typeof id === "string", "a write, with the key it was made under", made._meta);
const retry = await agent.callTool({ name: "createCustomer", arguments: { companyId, body: anna, idempotency_key: key } });
check(!retry.isError && envelope(retry).data?.id === id, "the retry answers the same customer", retry.structuredContent);

const reader = await connect(readKey);
const refused = await reader.callTool({ name: "createCustomer", arguments: { companyId, body: anna } });
const error = envelope(refused).error;
check(refused.isError === true && error?.code === "INSUFFICIENT_SCOPE" && !!error.recovery_hint && !!error.docs_url,
  "a key without the scope is refused, with the catalogue's hint and page", refused.structuredContent);

const tester = await connect(testKey);
const test = await tester.callTool({ name: "createCustomer", arguments: { companyId, body: { name: "Test AB",
  customer_type: "swedish_business" } } });
check(!test.isError && envelope(test).data?.dry_run === true, "a test key's write is a dry run", test.structuredContent);

const llms = await agent.readResource({ uri: "kontera:llms.txt" });
const first = llms.contents[0];
check("text" in first && typeof first.text === "string" && first.text.includes("Kontera"), "llms.txt as a resource");

const { prompts } = await agent.listPrompts();
const guide = await agent.getPrompt({ name: "guide-close-the-year" });
const said = guide.messages[0]?.content;
check(prompts.length >= 6 && said?.type === "text" && said.text.includes("`runFiscalYearEnd`"),
  "the task guides as prompts", prompts.map((p) => p.name));

await Promise.all([agent.close(), reader.close(), tester.close()]);
console.log("ok the MCP flow");
