// A second SIE 4 reader, written from reference/sie4.md alone and sharing
// no code with internal/sie: it checks Kontera's export from the outside.
// For each file named on the command line it prints one JSON line: the
// encoding it sniffed, the number of vouchers (#VER), each account's
// opening balance (#IB 0) plus its voucher rows (#TRANS; an #RTRANS
// stands for the #TRANS twin after it, a struck #BTRANS is history), and
// the checksum the file declares (#KSUMMA) beside the one computed.
import { readFileSync } from "node:fs";
import { crc32 } from "node:zlib";
import iconv from "iconv-lite";

type Field = string | string[];

interface Summary {
  file: string;
  encoding: string;
  vouchers: number;
  rows: number;
  accounts: Record<string, string>;
  ksumma: { declared: string | null; computed: string | null };
  problems: string[];
}

// sniff: valid UTF-8 with a byte above ASCII is UTF-8; otherwise the
// Swedish letters decide between CP437 and Windows-1252.
function sniff(buf: Buffer): string {
  if (buf.some((b) => b >= 0x80)) {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(buf);
      return "utf8";
    } catch {
      // not UTF-8
    }
  }
  let cp437 = 0;
  let latin = 0;
  for (const b of buf) {
    if ([0x86, 0x84, 0x94, 0x8f, 0x8e, 0x99].includes(b)) cp437++;
    if ([0xe5, 0xe4, 0xf6, 0xc5, 0xc4, 0xd6].includes(b)) latin++;
  }
  return latin > cp437 ? "win1252" : "cp437";
}

// tokens splits a record into its label and fields: blanks or tabs apart,
// quotes around any field with \" for a quote, {…} for an object list.
function tokens(line: string): { label: string; fields: Field[] } {
  const out: Field[] = [];
  let i = 0;
  const blank = (c: string) => c === " " || c === "\t";
  const word = (inList: boolean): string => {
    if (line[i] === '"') {
      let s = "";
      i++;
      while (i < line.length) {
        if (line[i] === "\\" && line[i + 1] === '"') {
          s += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          return s;
        } else {
          s += line[i++];
        }
      }
      throw new Error("a quote is not closed: " + line);
    }
    let s = "";
    while (i < line.length && !blank(line[i]) && !(inList && line[i] === "}")) s += line[i++];
    return s;
  };
  while (i < line.length && !blank(line[i])) i++;
  const label = line.slice(0, i).toUpperCase();
  for (;;) {
    while (i < line.length && blank(line[i])) i++;
    if (i >= line.length) break;
    if (line[i] === "{") {
      i++;
      const list: string[] = [];
      for (;;) {
        while (i < line.length && blank(line[i])) i++;
        if (i >= line.length) throw new Error("an object list is not closed: " + line);
        if (line[i] === "}") {
          i++;
          break;
        }
        list.push(word(true));
      }
      out.push(list);
    } else {
      out.push(word(false));
    }
  }
  return { label, fields: out };
}

// öre reads an amount with at most two decimals as whole öre.
function öre(s: string): bigint {
  const m = /^(-?)(\d*)(?:\.(\d{0,2}))?$/.exec(s);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new Error("not an amount: " + s);
  const v = BigInt(m[2] || "0") * 100n + BigInt(((m[3] ?? "") + "00").slice(0, 2));
  return m[1] === "-" ? -v : v;
}

function kronor(v: bigint): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  return (neg ? "-" : "") + (a / 100n).toString() + "." + (a % 100n).toString().padStart(2, "0");
}

function read(file: string): Summary {
  const buf = readFileSync(file);
  const encoding = sniff(buf);
  const text = encoding === "utf8" ? buf.toString("utf8") : iconv.decode(buf, encoding);
  const sums = new Map<string, bigint>();
  const add = (account: string, amount: string) => sums.set(account, (sums.get(account) ?? 0n) + öre(amount));
  const s: Summary = { file, encoding, vouchers: 0, rows: 0, accounts: {}, ksumma: { declared: null, computed: null }, problems: [] };
  let records = 0;
  let summing = false;
  let crc: number | undefined;
  let twin: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line === "{" || line === "}") continue;
    const { label, fields } = tokens(line);
    records++;
    if (label === "#KSUMMA") {
      if (fields.length === 0 && records === 2) {
        summing = true;
        crc = 0;
      } else if (summing) {
        s.ksumma.declared = String(fields[0]);
        s.ksumma.computed = String(crc);
        summing = false;
      }
      continue;
    }
    if (summing) {
      const chars = label + fields.map((f) => (Array.isArray(f) ? f.join("") : f)).join("");
      crc = crc32(iconv.encode(chars, "cp437"), crc);
    }
    const f = (n: number) => (Array.isArray(fields[n]) ? "" : (fields[n] as string) ?? "");
    switch (label) {
      case "#VER":
        s.vouchers++;
        twin = null;
        break;
      case "#IB":
        if (f(0) === "0") add(f(1), f(2));
        break;
      case "#RTRANS":
        add(f(0), f(2));
        s.rows++;
        twin = f(0) + " " + f(2);
        break;
      case "#TRANS":
        if (twin === f(0) + " " + f(2)) {
          twin = null;
          break;
        }
        twin = null;
        add(f(0), f(2));
        s.rows++;
        break;
      case "#BTRANS":
        twin = null;
        break;
    }
  }
  if (summing) s.problems.push("truncated: #KSUMMA opened, never closed");
  for (const [account, v] of [...sums.entries()].sort()) if (v !== 0n) s.accounts[account] = kronor(v);
  return s;
}

for (const file of process.argv.slice(2)) console.log(JSON.stringify(read(file)));
