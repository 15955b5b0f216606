// jsonrepair throughput on the same inputs as bench_repair, measured the
// same way (../common/measure.mjs: warm-up until the rate is stable, then
// the best of 5 rounds), printed in the same shape.
//   node jsonrepair.mjs replies FILE.jsonl   MB/s over every reply (one JSON string a line)
//   node jsonrepair.mjs valid                MB/s on a valid 16 MB document
import { readFileSync } from "node:fs";
import { jsonrepair } from "jsonrepair";
import { measureBest } from "../common/measure.mjs";

const [mode, path] = process.argv.slice(2);
const measure = (texts, bytes) => {
  const { rate, ok, warm } = measureBest(() => {
    let ok = 0;
    for (const s of texts) {
      try { jsonrepair(s); ok++; } catch { /* not recoverable */ }
    }
    return ok;
  });
  return [bytes * rate / 1e6, ok, warm];
};
const utf8 = (s) => Buffer.byteLength(s, "utf8");

if (mode === "replies") {
  const texts = readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const bytes = texts.reduce((n, s) => n + utf8(s), 0);
  const [mbs, ok, warm] = measure(texts, bytes);
  console.log(`jsonrepair ${mbs.toFixed(1)} MB/s ${texts.length} replies ${bytes} bytes ${ok} recovered (warm-up ${warm.toFixed(1)} s)`);
} else if (mode === "valid") {
  const parts = [];
  let n = 1;
  for (let i = 0; n < 16 * 1024 * 1024; i++) {
    const p = `{"id":${i},"name":"item ${i}","ok":true,"tags":["a","b"]}`;
    parts.push(p);
    n += p.length + 1;
  }
  const doc = "[" + parts.join(",") + "]";
  const [mbs, , warm] = measure([doc], utf8(doc));
  console.log(`jsonrepair valid ${mbs.toFixed(1)} MB/s ${utf8(doc)} bytes (warm-up ${warm.toFixed(1)} s)`);
}
