// SIE files as the flows send them: a year as another program writes
// it (in CP437, as #FORMAT PC8 says), sent as a Blob, and the import.sie
// operation awaited.
import iconv from "iconv-lite";
import { api, check, fail, fileNamed, key, settled } from "./client.js";

// sieYear is a year's SIE 4 file: #RAR 0 the year, then body (opening
// balances, vouchers, closing balances and result) as the lines go.
export function sieYear(year: number, company: string, body: string[]): Blob {
  const head = ["#FLAGGA 0", "#FORMAT PC8", "#SIETYP 4", '#PROGRAM "Ett annat program" 1.0', `#GEN ${year}1231`,
    `#FNAMN "${company}"`, "#ORGNR 556677-8899", `#RAR 0 ${year}0101 ${year}1231`, "#KPTYP BAS2014"];
  const text = [...head, ...body].join("\r\n") + "\r\n";
  return new Blob([new Uint8Array(iconv.encode(text, "cp437"))], { type: "application/octet-stream" });
}

// walkThroughYear is the README's last year as another program writes
// it: opened with 25 000 of share capital, a sale of 10 000 (+ 2 500
// VAT) and 6 000 rent (+ 1 500 VAT), a result of 4 000. Its vouchers are
// numbered series A first and second.
export function walkThroughYear(year: number, first = 1, second = 2): string[] {
  return [
    "#IB 0 1930 25000.00", "#IB 0 2081 -25000.00",
    `#VER A ${first} ${year}0315 "Kontantförsäljning"`, "{", "#TRANS 1930 {} 12500.00", "#TRANS 3001 {} -10000.00",
    "#TRANS 2611 {} -2500.00", "}",
    `#VER A ${second} ${year}0401 "Hyra verkstad"`, "{", "#TRANS 5010 {} 6000.00", "#TRANS 2641 {} 1500.00",
    "#TRANS 1930 {} -7500.00", "}",
    "#UB 0 1930 30000.00", "#UB 0 2081 -25000.00", "#UB 0 2611 -2500.00", "#UB 0 2641 1500.00",
    "#RES 0 3001 -10000.00", "#RES 0 5010 6000.00",
  ];
}

// importSie sends file (202 at once) and waits for its operation, whose
// type narrows the result to an import's.
export async function importSie(companyId: string, file: Blob, name: string) {
  const started = await api.POST("/api/v1/companies/{companyId}/imports/sie", {
    params: { path: { companyId }, header: { "Idempotency-Key": key() } },
    body: { file },
    bodySerializer: fileNamed(name),
  });
  const queued = started.data?.data;
  if (started.response.status !== 202 || queued === undefined || queued.type !== "import.sie") {
    fail(`send ${name}`, started.error);
  }
  check(true, `send ${name}`);
  const op = await settled(queued.operation_id);
  if (op.type !== "import.sie" || op.status !== "succeeded" || op.result === null) {
    fail(`import ${name}`, op);
  }
  return { importId: queued.import_id, result: op.result };
}
