// Writes spec/fixtures/tokens/heldout.jsonl: a small held-out sample of the
// evaluation set (3 texts of 200-2000 characters per category) with their
// exact o200k and cl100k counts, for spec/c/test_tokens.c. The tests run
// without node or npm; rerun this only when the corpus changes.
//
//   node fixture.mjs CORPUS_DIR OUT.jsonl
import fs from 'node:fs';
import path from 'node:path';
import { exactCount } from './exact.mjs';

const [DIR, OUT] = process.argv.slice(2);
const rows = fs.readFileSync(path.join(DIR, 'eval.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const per = new Map();
const out = [];
for (const r of rows) {
  const n = Array.from(r.text).length;
  if (n < 200 || n > 2000) continue;
  const k = per.get(r.cat) || 0;
  if (k >= 3) continue;
  per.set(r.cat, k + 1);
  out.push(JSON.stringify({ cat: r.cat, o200k: exactCount('o200k', r.text), cl100k: exactCount('cl100k', r.text), text: r.text }));
}
fs.writeFileSync(OUT, out.join('\n') + '\n');
console.error(`${OUT}: ${out.length} samples`);
