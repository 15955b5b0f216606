// jsonrepair throughput on the same replies file: MB/s over every reply
// (each JSON string a line), repeating for at least 0.5 s.
import { readFileSync } from "node:fs";
import { jsonrepair } from "jsonrepair";

const [mode, path] = process.argv.slice(2);
const measure = (texts, bytes) => {
  let ok = 0, rounds = 0;
  const t0 = performance.now();
  let t;
  do {
    ok = 0;
    for (const s of texts) {
      try { jsonrepair(s); ok++; } catch { /* not recoverable */ }
    }
    rounds++;
    t = (performance.now() - t0) / 1000;
  } while (t < 0.5);
  return [bytes * rounds / t / 1e6, ok];
};
const utf8 = (s) => Buffer.byteLength(s, "utf8");

if (mode === "replies") {
  const texts = readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const bytes = texts.reduce((n, s) => n + utf8(s), 0);
  const [mbs, ok] = measure(texts, bytes);
  console.log(`jsonrepair ${mbs.toFixed(1)} MB/s ${texts.length} replies ${bytes} bytes ${ok} recovered`);
} else if (mode === "valid") {
  const parts = [];
  let n = 1;
  for (let i = 0; n < 16 * 1024 * 1024; i++) {
    const p = `{"id":${i},"name":"item ${i}","ok":true,"tags":["a","b"]}`;
    parts.push(p);
    n += p.length + 1;
  }
  const doc = "[" + parts.join(",") + "]";
  const [mbs] = measure([doc], utf8(doc));
  console.log(`jsonrepair valid ${mbs.toFixed(1)} MB/s ${utf8(doc)} bytes`);
}
