// Fits the estimator's weights and writes engine/tokens/weights.c.
//
//   node fit.mjs PIECES CORPUS_DIR OUT.c
//   EVAL=weights.c node fit.mjs PIECES CORPUS_DIR
//
//   REHASH=OLD_PIECES FROM=weights.c node fit.mjs PIECES CORPUS_DIR OUT.c
//
// With REHASH, fits nothing either: keeps FROM's weights and slopes and
// places its table's entries again by the hash PIECES is built with (after
// a change of the piece hash), each entry known by the corpus pieces that
// OLD_PIECES (built with FROM's hash) finds in it; so the estimates of the
// corpus stay as they were, but where a piece finds no slot or a fingerprint
// matches falsely, which it counts. The slots of entries no corpus piece
// finds (fitted on another corpus) and of those that find no slot go to the
// pieces chooseCommon ranks first, up to FROM's count of entries, with ADD=1.
// ALSO: more corpus files (JSON lines with a text) to find entries by.
// With EVAL, fits nothing: reports the errors of the weights and table in
// that file (PIECES built with the hash they were placed by), so a refit's
// errors can be set beside the tables it replaces (VERBOSE=1: per category).
// PIECES is the bench tool that splits text exactly as the library does
// (pieces.c); CORPUS_DIR holds calib.jsonl (fitted on) and eval.jsonl (only
// reported, never fitted on). For each encoding:
//  1. every piece of the calibration texts gets its exact token count;
//  2. each key (kind, script, case, prefix, length) gets the weighted mean
//     count, shrunk toward coarser keys where data is thin; pieces longer
//     than TOK_MAXLEN add a fitted slope per code point;
//  3. the pieces whose exact count the key mean misses most, summed over the
//     corpus, go into the fingerprint table with their exact count; the key
//     means are then refitted on the remaining pieces (twice).
// Each sample weighs the same whatever its length (a piece weighs 1/tokens
// of its sample), so long files do not drown short replies.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { exactCount, SPLIT } from './exact.mjs';

// ---- keep in step with engine/tokens/tokens.h ------------------------------------------
const NSCRIPT = 21, NCASE = 4, NPRE = 4, MAXLEN = 24, SCALE = 256;
const ROWS_WORD = NSCRIPT * NCASE * NPRE, ROWS_PUNCT = NSCRIPT * 8, ROWS_NUM = NSCRIPT;
const ROW_WORD = 0, ROW_PUNCT = ROW_WORD + ROWS_WORD, ROW_NUM = ROW_PUNCT + ROWS_PUNCT;
const ROW_SPACE = ROW_NUM + ROWS_NUM, ROW_NEWLINE = ROW_SPACE + 3, ROW_CONTR = ROW_NEWLINE + 3;
const NROWS = ROW_CONTR + 1, NKEYS = NROWS * MAXLEN;
const SLOTS = +(process.env.SLOTS || 16384), COMMON_MAX = +(process.env.COMMON_MAX || 7000), PROBES = 4, SHRINK = 5;

const [PIECES, DIR, OUTC] = process.argv.slice(2);
if (!OUTC && !process.env.EVAL) { console.error('usage: node fit.mjs PIECES CORPUS_DIR OUT.c'); process.exit(2); }

function loadCorpus(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

function chainOf(row) {
  if (row < ROW_PUNCT) {
    const r = row - ROW_WORD, cs = Math.floor(r / NPRE) % NCASE, sc = Math.floor(r / (NPRE * NCASE));
    return [`r${row}`, `w${sc}:${cs}`, `w${sc}`, 'w'];
  }
  if (row < ROW_NUM) {
    const r = row - ROW_PUNCT, rep = r & 1, lead = (r >> 2) & 1, sc = r >> 3;
    return [`r${row}`, `p${sc}:${rep}:${lead}`, `p${sc}:${rep}`, `p:${rep}`, 'p'];
  }
  if (row < ROW_SPACE) return [`r${row}`, 'n'];
  if (row < ROW_NEWLINE) return [`r${row}`, 's'];
  if (row < ROW_CONTR) return [`r${row}`, 'nl'];
  return [`r${row}`, 'c'];
}
const CHAINS = Array.from({ length: NROWS }, (_, r) => chainOf(r));

// Splits and counts: per sample, the list of pieces {key, row, len, hash, hashed, t}.
function piecesOf(enc, file, samples) {
  const bin = execFileSync(PIECES, [enc, file], { maxBuffer: 1 << 30 });
  const u32 = new Uint32Array(bin.buffer, bin.byteOffset, bin.byteLength / 4);
  const memo = new Map();
  let at = 0, agree = 0, total = 0;
  const out = [];
  for (const s of samples) {
    const buf = Buffer.from(s.text, 'utf8');
    const np = u32[at++];
    const list = [];
    const ours = new Set();
    for (let i = 0; i < np; i++, at += 6) {
      const start = u32[at], end = u32[at + 1], key = u32[at + 2], hash = u32[at + 3], hashed = u32[at + 4], len = u32[at + 5];
      const piece = buf.subarray(start, end).toString('utf8');
      let t = memo.get(piece);
      if (t === undefined) { t = exactCount(enc, piece); memo.set(piece, t); }
      list.push({ key, row: Math.floor(key / MAXLEN), len, hash, hashed, t, bytes: end - start });
      ours.add(start * 65536 * 4 + end);
    }
    // How often coax's pieces are the real pre-tokenizer's pieces.
    let b0 = 0;
    for (const m of s.text.matchAll(SPLIT[enc])) {
      const b1 = b0 + Buffer.byteLength(m[0]);
      total++;
      if (ours.has(b0 * 65536 * 4 + b1)) agree++;
      b0 = b1;
    }
    out.push(list);
  }
  if (at !== u32.length) throw new Error(`${PIECES} output does not match ${file}`);
  return { samples: out, agree, total };
}

function fit(samplesPieces, commonSet) {
  // Weighted stats per group and length.
  const stats = new Map();
  const get = (g) => { let s = stats.get(g); if (!s) { s = { W: new Float64Array(MAXLEN), S: new Float64Array(MAXLEN), N: new Float64Array(MAXLEN) }; stats.set(g, s); } return s; };
  const long = [];
  for (const list of samplesPieces) {
    const T = Math.max(100, list.reduce((a, p) => a + p.t, 0));
    const w = 1 / T;
    for (const p of list) {
      if (p.hashed && commonSet.has(p.hash)) continue;
      const L = p.len;
      if (L > MAXLEN) { long.push({ p, w }); continue; }
      for (const g of CHAINS[p.row]) { const s = get(g); s.W[L - 1] += w; s.S[L - 1] += w * p.t; s.N[L - 1]++; }
    }
  }
  // Means, coarse to fine.
  const est = new Map();
  const estOf = (chain, level) => {
    const g = chain[level];
    if (est.has(g)) return est.get(g);
    const s = stats.get(g);
    const e = new Float64Array(MAXLEN);
    if (level === chain.length - 1) {
      let last = -1;
      for (let L = 0; L < MAXLEN; L++) {
        if (s && s.N[L] > 0) { e[L] = s.S[L] / s.W[L]; last = L; }
        else e[L] = last >= 0 ? e[last] * (L + 1) / (last + 1) : L + 1;
      }
    } else {
      const parent = estOf(chain, level + 1);
      for (let L = 0; L < MAXLEN; L++) {
        const n = s ? s.N[L] : 0;
        e[L] = n > 0 ? (n * (s.S[L] / s.W[L]) + SHRINK * parent[L]) / (n + SHRINK) : parent[L];
      }
    }
    est.set(g, e);
    return e;
  };
  const weight = new Uint16Array(NKEYS);
  for (let r = 0; r < NROWS; r++) {
    const e = estOf(CHAINS[r], 0);
    for (let L = 0; L < MAXLEN; L++) weight[r * MAXLEN + L] = Math.min(65535, Math.round(e[L] * SCALE));
  }
  // Slopes beyond MAXLEN.
  const sl = new Map();
  for (const { p, w } of long) {
    for (const g of CHAINS[p.row]) {
      const e = est.get(g);
      let s = sl.get(g); if (!s) { s = { D: 0, L: 0, n: 0 }; sl.set(g, s); }
      s.D += w * (p.t - e[MAXLEN - 1]); s.L += w * (p.len - MAXLEN); s.n++;
    }
  }
  const slopeOf = (chain, level) => {
    const g = chain[level], s = sl.get(g);
    if (level === chain.length - 1) {
      const e = est.get(g);
      return s && s.n > 0 && s.L > 0 ? Math.max(0, s.D / s.L) : e[MAXLEN - 1] / MAXLEN;
    }
    const parent = slopeOf(chain, level + 1);
    if (!s || s.n === 0 || s.L <= 0) return parent;
    return (s.n * Math.max(0, s.D / s.L) + SHRINK * parent) / (s.n + SHRINK);
  };
  const slope = new Uint16Array(NROWS);
  for (let r = 0; r < NROWS; r++) slope[r] = Math.min(65535, Math.round(slopeOf(CHAINS[r], 0) * SCALE));
  return { weight, slope };
}

function pieceWeight(model, p) {
  if (p.len <= MAXLEN) return model.weight[p.key];
  return model.weight[p.row * MAXLEN + MAXLEN - 1] + (p.len - MAXLEN) * model.slope[p.row];
}

function chooseCommon(samplesPieces, model) {
  const benefit = new Map();
  for (const list of samplesPieces) {
    const T = Math.max(100, list.reduce((a, p) => a + p.t, 0));
    const seen = new Map();
    for (const p of list) {
      if (!p.hashed || p.t > 4) continue;
      const c = (seen.get(p.hash) || 0) + 1;
      seen.set(p.hash, c);
      if (c > 3) continue; // a word repeated in one file is not a common word
      const err = Math.abs(p.t * SCALE - pieceWeight(model, p)) / SCALE;
      const b = benefit.get(p.hash);
      if (b) b.v += err / T; else benefit.set(p.hash, { v: err / T, t: p.t });
    }
  }
  const ranked = [...benefit.entries()].filter(([, b]) => b.v > 0).sort((a, b) => b[1].v - a[1].v || a[0] - b[0]);
  return new Map(ranked.slice(0, COMMON_MAX).map(([h, b]) => [h, b.t]));
}

// Entries go in by decreasing benefit, each into a free slot within PROBES
// of its hash, moving placed entries within theirs when that frees one (an
// augmenting path: as many entries as any placement holds); one that finds
// none is left out (and its piece keeps its key's weight). Entries then move
// back while the slot before them is free and within their reach, so none
// sits after an empty slot of its reach, where the probe, which stops at an
// empty slot, would not find it.
function buildTable(common) {
  const hashes = [...common.keys()], owner = new Int32Array(SLOTS).fill(-1), seen = new Int32Array(SLOTS).fill(-1);
  const home = (e) => hashes[e] & (SLOTS - 1);
  const place = (e, stamp) => {
    for (let p = 0, slot = home(e); p < PROBES; p++, slot = (slot + 1) & (SLOTS - 1)) {
      if (seen[slot] === stamp) continue;
      seen[slot] = stamp;
      if (owner[slot] < 0 || place(owner[slot], stamp)) { owner[slot] = e; return true; }
    }
    return false;
  };
  const placed = hashes.map((_, e) => place(e, e));
  for (let moved = true; moved;) {
    moved = false;
    for (let slot = 0; slot < SLOTS; slot++) {
      const e = owner[slot], before = (slot - 1) & (SLOTS - 1);
      if (e >= 0 && slot !== home(e) && owner[before] < 0) { owner[before] = e; owner[slot] = -1; moved = true; }
    }
  }
  const table = new Uint16Array(SLOTS);
  for (let slot = 0; slot < SLOTS; slot++) {
    const e = owner[slot];
    if (e < 0) continue;
    const h = hashes[e];
    let fp = (h >>> 18) & 0x3fff; if (!fp) fp = 1;
    table[slot] = (fp << 2) | (common.get(h) - 1);
  }
  const kept = new Map();
  for (let e = 0; e < hashes.length; e++) if (placed[e] && lookup(table, hashes[e]) === common.get(hashes[e])) kept.set(hashes[e], common.get(hashes[e]));
  return { table, kept };
}
function lookup(table, h) {
  let fp = (h >>> 18) & 0x3fff; if (!fp) fp = 1;
  const slots = table.length;
  let slot = h & (slots - 1);
  for (let p = 0; p < PROBES; p++, slot = (slot + 1) & (slots - 1)) {
    const e = table[slot];
    if (!e) return 0;
    if (e >> 2 === fp) return (e & 3) + 1;
  }
  return 0;
}

// As coax_tokens computes it (tokens.c), clamps to the byte count included.
function estimate(model, table, list) {
  let sum = 0, bytes = 0;
  for (const p of list) {
    const c = p.hashed ? lookup(table, p.hash) : 0;
    sum += Math.min(c ? c * SCALE : pieceWeight(model, p), p.bytes * SCALE);
    bytes += p.bytes;
  }
  const n = Math.floor((sum + SCALE / 2) / SCALE);
  return Math.min(bytes, list.length && n < 1 ? 1 : n);
}

function report(label, samples, lists, model, table) {
  const byCat = new Map();
  for (let i = 0; i < samples.length; i++) {
    const exact = lists[i].reduce((a, p) => a + p.t, 0);
    if (Array.from(samples[i].text).length < 200 || exact === 0) continue;
    const est = estimate(model, table, lists[i]);
    const e = Math.abs(est - exact) / exact;
    if (process.env.SHOW && samples[i].cat === process.env.SHOW && e > 0.05) console.error(`      ${samples[i].src} ${Array.from(samples[i].text).length} chars exact ${exact} est ${est} ${(100 * (est - exact) / exact).toFixed(1)}%`);
    (byCat.get(samples[i].cat) || byCat.set(samples[i].cat, []).get(samples[i].cat)).push(e);
  }
  const all = [];
  const rows = [];
  for (const [cat, errs] of [...byCat.entries()].sort()) {
    all.push(...errs);
    errs.sort((a, b) => a - b);
    rows.push(`    ${cat.padEnd(20)} mean ${(100 * errs.reduce((a, b) => a + b, 0) / errs.length).toFixed(2).padStart(6)}%  p95 ${(100 * errs[Math.min(errs.length - 1, Math.floor(errs.length * 0.95))]).toFixed(2).padStart(6)}%`);
  }
  all.sort((a, b) => a - b);
  console.error(`  ${label}: mean ${(100 * all.reduce((a, b) => a + b, 0) / all.length).toFixed(2)}%  p95 ${(100 * all[Math.floor(all.length * 0.95)]).toFixed(2)}%  (${all.length} samples >= 200 chars)`);
  if (process.env.VERBOSE) console.error(rows.join('\n'));
}

function cArray(type, name, arr, perLine = 16) {
  const lines = [`static const ${type} ${name}[${arr.length}] = {`];
  for (let i = 0; i < arr.length; i += perLine) lines.push('    ' + Array.from(arr.subarray(i, i + perLine)).join(', ') + ',');
  lines.push('};');
  return lines.join('\n');
}

// The weights, slopes and table of 'enc' from a weights.c this tool wrote.
function readTables(file, enc) {
  const src = fs.readFileSync(file, 'utf8');
  const array = (name) => {
    const m = src.match(new RegExp(`${enc}_${name}\\[\\d+\\] = \\{([^}]*)\\}`));
    if (!m) throw new Error(`${file}: no ${enc}_${name}`);
    return Uint16Array.from(m[1].split(',').map((x) => x.trim()).filter(Boolean).map(Number));
  };
  const common = array('common'); // power-of-two slots, then perhaps the wrap's copy
  return { model: { weight: array('weight'), slope: array('slope') }, table: common.subarray(0, 1 << Math.floor(Math.log2(common.length))) };
}

// Rebuilds 'from.table' under PIECES' hash: every corpus piece whose old
// hash finds an entry becomes an entry of the new table (most frequent
// first), with the old entry's tokens.
function rehash(enc, from, samplesPieces) {
  const entries = new Map(), usedOld = new Set();
  const raws = [];
  const also = (process.env.ALSO || '').split(/\s+/).filter(Boolean);
  for (const file of [path.join(DIR, 'calib.jsonl'), path.join(DIR, 'eval.jsonl'), ...also]) {
    const raw = (bin) => {
      const b = execFileSync(bin, [enc, file], { maxBuffer: 1 << 30 });
      return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    };
    const o = raw(process.env.REHASH), n = raw(PIECES);
    if (o.length !== n.length) throw new Error(`${file}: the two pieces tools split differently`);
    raws.push([o, n]);
    for (let at = 0; at < o.length;) {
      const np = o[at++];
      for (let i = 0; i < np; i++, at += 6) {
        if (o[at] !== n[at] || o[at + 1] !== n[at + 1]) throw new Error(`${file}: pieces differ at ${at}`);
        if (!o[at + 4]) continue;
        const t = lookup(from.table, o[at + 3]);
        if (!t) continue;
        usedOld.add(o[at + 3]);
        const e = entries.get(n[at + 3]);
        if (!e) entries.set(n[at + 3], { t, count: 1 });
        else if (e.t === t) e.count++;
        else throw new Error(`${enc}: two pieces of new hash ${n[at + 3]} have ${e.t} and ${t} tokens`);
      }
    }
  }
  const ranked = [...entries.entries()].sort((a, b) => b[1].count - a[1].count || a[0] - b[0]);
  const common = new Map(ranked.map(([h, e]) => [h, e.t]));
  const full = from.table.reduce((a, e) => a + (e !== 0), 0);
  for (const [h, t] of process.env.ADD ? chooseCommon(samplesPieces, from.model) : []) {
    if (common.size >= full) break;
    if (!common.has(h)) common.set(h, t);
  }
  const { table, kept } = buildTable(common);
  let pieces = 0, changed = 0;
  for (const [o, n] of raws) {
    for (let at = 0; at < o.length;) {
      const np = o[at++];
      for (let i = 0; i < np; i++, at += 6) {
        if (!o[at + 4]) continue;
        pieces++;
        if (lookup(from.table, o[at + 3]) !== lookup(table, n[at + 3])) changed++;
      }
    }
  }
  const old = ranked.filter(([h]) => kept.has(h)).length;
  console.error(`  rehash: ${full} entries, ${entries.size} pieces found in them (by ${usedOld.size} hashes), ` +
    `${old} placed, ${kept.size - old} added; ${changed} of ${pieces} hashed corpus pieces answered differently`);
  return table;
}

const calib = loadCorpus(path.join(DIR, 'calib.jsonl'));
const evalSet = loadCorpus(path.join(DIR, 'eval.jsonl'));
const parts = [];
for (const enc of ['o200k', 'cl100k']) {
  const c = piecesOf(enc, path.join(DIR, 'calib.jsonl'), calib);
  const e = piecesOf(enc, path.join(DIR, 'eval.jsonl'), evalSet);
  console.error(`${enc}: pieces agreeing with the real pre-tokenizer: ${(100 * c.agree / c.total).toFixed(3)}% of ${c.total}`);
  let common = new Map(), table, model;
  if (process.env.EVAL) {
    ({ model, table } = readTables(process.env.EVAL, enc));
  } else if (process.env.REHASH) {
    const from = readTables(process.env.FROM, enc);
    model = from.model;
    table = rehash(enc, from, c.samples);
  } else {
    model = fit(c.samples, common);
    for (let round = 0; round < 2; round++) {
      ({ table, kept: common } = buildTable(chooseCommon(c.samples, model)));
      model = fit(c.samples, common);
    }
  }
  if (!process.env.EVAL) console.error(`  common pieces: ${table.reduce((a, e) => a + (e !== 0), 0)} in ${SLOTS} slots`);
  report('calibration', calib, c.samples, model, table);
  report('evaluation ', evalSet, e.samples, model, table);
  parts.push(cArray('uint16_t', `${enc}_weight`, model.weight, 24));
  parts.push(cArray('uint16_t', `${enc}_slope`, model.slope, 16));
  // the first PROBES - 1 slots again after the last: a probe's one load
  // near the end reads them in place of its wrap
  const padded = new Uint16Array(SLOTS + PROBES - 1);
  padded.set(table);
  padded.set(table.subarray(0, PROBES - 1), SLOTS);
  parts.push(cArray('uint16_t', `${enc}_common`, padded, 16));
  parts.push(`const tok_model coax_tok_model_${enc} = {${enc}_weight, ${enc}_slope, ${enc}_common};`);
}

if (process.env.EVAL) process.exit(0);
const header = `/*
** tokens/weights.c: GENERATED by bench/tokens/fit.mjs (make -C bench tokens-fit)
** from the corpus of bench/tokens/corpus.mjs and the exact tokenizers of
** gpt-tokenizer (bench/tokens/package.json). Do not edit.
**${process.env.REHASH ? ' REHASH: the weights and slopes of the fit before, its table\n** re-placed by the piece hash of table.h and filled up with new pieces.\n**' : ''} Per encoding: weights per key (1/${SCALE} token), slopes per row, and the
** fingerprint table of frequent pieces (tokens.h).
*/
#include "tokens/tokens.h"

_Static_assert(TOK_NKEYS == ${NKEYS} && TOK_NROWS == ${NROWS} && TOK_SCALE == ${SCALE} &&
               TOK_COMMON_SLOTS == ${SLOTS} && TOK_PROBES == ${PROBES}, "tokens.h and bench/tokens/fit.mjs disagree");
`;
fs.writeFileSync(OUTC, header + '\n' + parts.join('\n\n') + '\n');
console.error(`wrote ${OUTC}`);
