// coax tokens beside tokenx and chars/4, against the exact o200k and cl100k
// counts of gpt-tokenizer, on the evaluation set (never fitted on).
//
//   node bench.mjs COAX BENCH_TOKENS CORPUS_DIR
//
// Prints, per category, the mean and 95th-percentile absolute relative
// error of each estimator on samples of 200 characters or more, and the
// pooled rows of this set (to compare estimators: the accuracy figure coax
// states is make test's held-out sample, README "Token estimation"), then
// the speed of each in MB/s of input, measured in this run, with coax's
// ratio to tokenx.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { estimateTokenCount } from 'tokenx';
import { exactCount } from './exact.mjs';
import { measureBest } from '../common/measure.mjs';

const [COAX, BENCH, DIR] = process.argv.slice(2);
const samples = fs.readFileSync(path.join(DIR, 'eval.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const texts = samples.map((s) => s.text);
const input = texts.map((t) => JSON.stringify(t)).join('\n') + '\n';

function coax(enc) {
  const out = execFileSync(COAX, ['tokens', '--jsonl', '--encoding', enc], { input, maxBuffer: 1 << 28 }).toString();
  return out.trim().split('\n').map(Number);
}
const chars4 = (t) => Math.ceil(Array.from(t).length / 4);
const est = {
  'chars/4': texts.map(chars4),
  tokenx: texts.map((t) => estimateTokenCount(t)),
};
const coaxEst = { o200k: coax('o200k'), cl100k: coax('cl100k') };
const exact = { o200k: texts.map((t) => exactCount('o200k', t)), cl100k: texts.map((t) => exactCount('cl100k', t)) };

const pct = (x) => (100 * x).toFixed(1).padStart(5) + '%';
function stats(errs) {
  if (!errs.length) return { mean: NaN, p95: NaN, n: 0 };
  const s = [...errs].sort((a, b) => a - b);
  return { mean: s.reduce((a, b) => a + b, 0) / s.length, p95: s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)], n: s.length };
}
const cell = (st) => `${pct(st.mean)} ${pct(st.p95)}`;

const worst = {};
for (const enc of ['o200k', 'cl100k']) {
  const names = ['chars/4', 'tokenx', 'coax'];
  const get = (name, i) => (name === 'coax' ? coaxEst[enc][i] : est[name][i]);
  const cats = [...new Set(samples.map((s) => s.cat))].sort();
  console.log(`\n${enc}: absolute error against exact counts, mean and p95 (samples >= 200 characters)`);
  console.log(`  ${'category'.padEnd(20)} ${'n'.padStart(4)}  ${names.map((n) => n.padEnd(14)).join(' ')}`);
  const all = Object.fromEntries(names.map((n) => [n, []]));
  const short = Object.fromEntries(names.map((n) => [n, []]));
  for (const cat of cats) {
    const row = Object.fromEntries(names.map((n) => [n, []]));
    samples.forEach((s, i) => {
      if (s.cat !== cat || exact[enc][i] === 0) return;
      const long = Array.from(s.text).length >= 200;
      for (const n of names) {
        const e = Math.abs(get(n, i) - exact[enc][i]) / exact[enc][i];
        (long ? row[n] : short[n]).push(e);
        if (long) all[n].push(e);
      }
    });
    const st = Object.fromEntries(names.map((n) => [n, stats(row[n])]));
    worst[enc] = Math.max(worst[enc] || 0, st.coax.mean);
    console.log(`  ${cat.padEnd(20)} ${String(st.coax.n).padStart(4)}  ${names.map((n) => cell(st[n]).padEnd(14)).join(' ')}`);
  }
  const tot = Object.fromEntries(names.map((n) => [n, stats(all[n])]));
  const sh = Object.fromEntries(names.map((n) => [n, stats(short[n])]));
  console.log(`  ${'pooled, compare only'.padEnd(20)} ${String(tot.coax.n).padStart(4)}  ${names.map((n) => cell(tot[n]).padEnd(14)).join(' ')}`);
  console.log(`  ${'shorter than 200'.padEnd(20)} ${String(sh.coax.n).padStart(4)}  ${names.map((n) => cell(sh[n]).padEnd(14)).join(' ')}`);
  console.log(`  worst category mean for coax: ${pct(worst[enc])}; error ratio coax/tokenx overall: ${(tot.coax.mean / tot.tokenx.mean).toFixed(2)}`);
}

// Speed: MB/s of input over the whole evaluation set, every estimator
// measured as ../common/measure.mjs says (warm-up until the rate is stable,
// then the best of 5 rounds), as bench_tokens measures coax.
const bytes = texts.reduce((a, t) => a + Buffer.byteLength(t), 0);
function mbps(fn) {
  const { rate } = measureBest(() => { for (const t of texts) fn(t); return 0; });
  return bytes * rate / 1e6;
}
const speed = {};
for (const line of execFileSync(BENCH, [path.join(DIR, 'eval.jsonl')]).toString().trim().split('\n')) {
  const [enc, v] = line.split(' ');
  speed[`coax ${enc}`] = Number(v);
}
speed.tokenx = mbps((t) => estimateTokenCount(t));
speed['chars/4 (JS)'] = mbps(chars4);
speed['gpt-tokenizer o200k (exact)'] = mbps((t) => exactCount('o200k', t));
console.log(`\nspeed over ${(bytes / 1e6).toFixed(1)} MB (${texts.length} samples), MB/s, each warmed up, best of 5 rounds:`);
for (const [k, v] of Object.entries(speed)) console.log(`  ${k.padEnd(30)} ${v.toFixed(1).padStart(8)}`);
console.log(`  coax o200k ${speed['coax o200k'].toFixed(1)}, tokenx ${speed.tokenx.toFixed(1)}: ${(speed['coax o200k'] / speed.tokenx).toFixed(1)}x`);

// Instructions a byte (callgrind, one pass of coax_tokens over the set): the
// machine's load moves the rates above, not this.
function irPerByte(enc) {
  const run = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', '--toggle-collect=coax_tokens',
    BENCH, path.join(DIR, 'eval.jsonl'), '1', enc], { stdio: ['ignore', 'ignore', 'pipe'] });
  const m = run.status === 0 && run.stderr.toString().match(/Collected : (\d+)/);
  return m ? Number(m[1]) / bytes : NaN;
}
const ir = { o200k: irPerByte('o200k'), cl100k: irPerByte('cl100k') };
if (Number.isNaN(ir.o200k)) console.log('  instructions a byte: n/a (no valgrind)');
else console.log(`  instructions a byte (callgrind): coax o200k ${ir.o200k.toFixed(1)}, cl100k ${ir.cl100k.toFixed(1)}`);
