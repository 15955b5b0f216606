// Assembles the token-estimation corpus from text that ships with Debian
// (manual pages in a dozen languages, gettext catalogues, C headers, Lua and
// Python sources, Node's markdown and JSON documentation, iso-codes) plus
// seeded generators for what no file holds in bulk (JSON replies, number
// lists, UUIDs, base64, emoji chat). Deterministic: sorted file lists, a
// seeded PRNG, and a split by source file (70% calibration, 30% evaluation)
// so the evaluation set never shares a document with the fit.
//
//   node corpus.mjs OUTDIR      writes OUTDIR/calib.jsonl and OUTDIR/eval.jsonl
//
// Each line: {"cat": CATEGORY, "src": SOURCE, "text": TEXT}. Sources that are
// missing on a machine are skipped; the summary on stderr lists the counts
// per category and a digest of both files, so two runs can be compared.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const OUT = process.argv[2] || 'out/tokens';
const PER_CAT = { calib: 110, eval: 50 };
const MIN_LEN = 50, MAX_LEN = 50000;

// ---- deterministic randomness ------------------------------------------------
function mulberry32(seed) {
  return function () {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function strSeed(s) { return createHash('sha256').update(s).digest().readUInt32LE(0); }
const pick = (rng, arr) => arr[Math.floor(rng() * arr.length)];
const logUniform = (rng, lo, hi) => Math.round(Math.exp(Math.log(lo) + rng() * (Math.log(hi) - Math.log(lo))));
function splitOf(src) { return strSeed('split:' + src) % 10 < 7 ? 'calib' : 'eval'; }

// ---- files -------------------------------------------------------------------
function walk(dir, re, out = [], depth = 0) {
  let ents;
  try { ents = fs.readdirSync(dir, { withFileTypes: true }); } catch { return out; }
  ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of ents) {
    const p = path.join(dir, e.name);
    let st = e;
    if (e.isSymbolicLink()) { try { st = fs.statSync(p); } catch { continue; } }
    if (st.isDirectory()) { if (depth < 8) walk(p, re, out, depth + 1); }
    else if (st.isFile() && re.test(e.name)) out.push(p);
  }
  return out;
}
function readText(p) {
  let b = fs.readFileSync(p);
  if (p.endsWith('.gz')) b = zlib.gunzipSync(b);
  return b.toString('utf8');
}
function renderMan(p) {
  try {
    const raw = execFileSync('timeout', ['-s', 'KILL', '8', 'man', '-l', '-E', 'UTF-8', p], {
      env: { ...process.env, MANWIDTH: '80', LANG: 'C.UTF-8', MAN_KEEP_FORMATTING: '', MANPAGER: 'cat', PAGER: 'cat' },
      stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20
    });
    return execFileSync('col', ['-bx'], { input: raw, maxBuffer: 64 << 20, env: { ...process.env, LANG: 'C.UTF-8' } }).toString('utf8');
  } catch { return ''; }
}
// gettext .mo: the translations (or, for English, the original strings).
function readMo(p, originals) {
  const b = fs.readFileSync(p);
  const le = b.readUInt32LE(0) === 0x950412de;
  const u32 = (o) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const n = u32(8), table = u32(originals ? 12 : 16);
  // Only UTF-8 catalogues (a few old ones are EUC-JP or ISO-8859).
  const t = u32(16), hlen = u32(t), hoff = u32(t + 4);
  if (n && !/charset=UTF-8/i.test(b.subarray(hoff, hoff + hlen).toString('latin1'))) return '';
  const parts = [];
  for (let i = 0; i < n; i++) {
    const len = u32(table + 8 * i), off = u32(table + 8 * i + 4);
    const s = b.subarray(off, off + len).toString('utf8');
    if (s && !s.startsWith('Project-Id-Version')) parts.push(s.split('\0')[0]);
  }
  return parts.join('\n\n');
}

// Cuts a sample of about 'len' characters from a document, at line starts.
function cut(rng, doc, len) {
  const cps = Array.from(doc);
  if (cps.length <= len) return doc;
  let start = Math.floor(rng() * (cps.length - len));
  while (start > 0 && cps[start - 1] !== '\n' && start > 0) start--;
  let end = Math.min(cps.length, start + len);
  return cps.slice(start, end).join('');
}

// ---- generators ----------------------------------------------------------------
const WORDS = ('the of and to in is was for on that with as by at from it an be this are or which have ' +
  'user order item price total status created updated customer invoice shipping address account email ' +
  'phone product quantity description payment method delivered pending cancelled review rating summary ' +
  'title author published category tags notes reason error message result value field name first last ' +
  'city country street postal code date time amount currency discount tax weight height width color size').split(' ');
const NAMES = ['Alice', 'Bob', 'Chen Wei', 'Dmitri Ivanov', 'Élodie Martin', 'Fatima Zahra', 'Giulia Rossi',
  'Hiroshi Tanaka', 'Ingrid Johansson', 'José García', 'Kim Min-jun', 'Łukasz Nowak', 'María López', 'Nguyễn Văn An',
  'Olga Petrova', 'Priya Sharma', 'Søren Kierkegaard', 'Zoë Smith', '山田太郎', '王小明', '김민수', 'Мария Иванова'];
const EMOJI = ['😀', '😂', '🥲', '😍', '🤔', '🙏', '👍', '👍🏽', '👋🏻', '🎉', '🔥', '✨', '❤️', '💔', '✅', '❌', '⚠️',
  '🚀', '📦', '📈', '🐛', '🍕', '☕', '🌍', '🇫🇷', '🇯🇵', '🇧🇷', '👨‍👩‍👧‍👦', '🧑🏾‍💻', '👩‍🔬', '🏳️‍🌈', '1️⃣', '©️', '™️', '🤖', '😅', '🙌', '💡', '📝', '⏰'];

function sentence(rng, pool) {
  const n = 4 + Math.floor(rng() * 12), w = [];
  for (let i = 0; i < n; i++) w.push(pick(rng, pool));
  const s = w.join(' ');
  return s[0].toUpperCase() + s.slice(1) + pick(rng, ['.', '.', '!', '?', '...']);
}
function uuid(rng) {
  const h = () => Math.floor(rng() * 16).toString(16);
  let s = '';
  for (let i = 0; i < 32; i++) s += i === 12 ? '4' : i === 16 ? '89ab'[Math.floor(rng() * 4)] : h();
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
function number(rng) {
  switch (Math.floor(rng() * 6)) {
    case 0: return String(Math.floor(rng() * 100));
    case 1: return String(Math.floor(rng() * 1e6));
    case 2: return (rng() * 1000).toFixed(2);
    case 3: return (rng() * 2 - 1).toFixed(6);
    case 4: return String(Math.floor(rng() * 1e12));
    default: return (rng() * 1e5).toExponential(3);
  }
}
function jsonValue(rng, depth, prose) {
  const r = rng();
  if (depth > 3 || r < 0.45) {
    const k = Math.floor(rng() * 9);
    if (k === 0) return Math.floor(rng() * 1000);
    if (k === 1) return Number((rng() * 500).toFixed(2));
    if (k === 2) return rng() < 0.5;
    if (k === 3) return null;
    if (k === 4) return uuid(rng);
    if (k === 5) return new Date(1.6e12 + rng() * 1e11).toISOString();
    if (k === 6) return pick(rng, NAMES);
    if (k === 7) return pick(rng, prose) || sentence(rng, WORDS);
    return pick(rng, WORDS);
  }
  if (r < 0.65) {
    const n = 1 + Math.floor(rng() * 5), a = [];
    for (let i = 0; i < n; i++) a.push(jsonValue(rng, depth + 1, prose));
    return a;
  }
  const n = 2 + Math.floor(rng() * 6), o = {};
  for (let i = 0; i < n; i++) {
    const key = rng() < 0.3 ? pick(rng, WORDS) + pick(rng, ['_id', 'Name', '_at', 'Count', 's', '']) : pick(rng, WORDS);
    o[key] = jsonValue(rng, depth + 1, prose);
  }
  return o;
}
function jsonDoc(rng, len, prose, pretty) {
  const items = [];
  let size = 0;
  while (size < len) {
    const v = jsonValue(rng, 0, prose);
    items.push(v);
    size += JSON.stringify(v).length * (pretty ? 1.6 : 1);
  }
  const v = items.length === 1 ? items[0] : { results: items, count: items.length, next: null };
  return JSON.stringify(v, null, pretty ? pick(rng, [2, 2, 4, '\t']) : undefined);
}
const GEN = {
  numbers(rng, len) {
    const style = Math.floor(rng() * 4), out = [];
    let size = 0;
    while (size < len) {
      let line;
      if (style === 0) line = number(rng);
      else if (style === 1) { const r = []; for (let i = 0; i < 6; i++) r.push(number(rng)); line = r.join(','); }
      else if (style === 2) { const r = []; for (let i = 0; i < 8; i++) r.push(number(rng)); line = '[' + r.join(', ') + '],'; }
      else { const r = []; for (let i = 0; i < 5; i++) r.push(number(rng).padStart(12)); line = r.join(' '); }
      out.push(line); size += line.length + 1;
    }
    return out.join('\n');
  },
  uuid(rng, len) {
    const style = Math.floor(rng() * 3), out = [];
    let size = 0;
    while (size < len) {
      const u = rng() < 0.2 ? uuid(rng).toUpperCase() : uuid(rng);
      const line = style === 0 ? u : style === 1 ? `  "${u}",` : `${u}\t${Math.floor(rng() * 1e6)}\t${pick(rng, WORDS)}`;
      out.push(line); size += line.length + 1;
    }
    return out.join('\n');
  },
  base64(rng, len, files) {
    let bytes;
    if (rng() < 0.5 && files.length) {
      const f = fs.readFileSync(pick(rng, files));
      const off = Math.floor(rng() * Math.max(1, f.length - len));
      bytes = f.subarray(off, off + Math.ceil(len * 0.75));
    } else {
      bytes = Buffer.alloc(Math.ceil(len * 0.75));
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rng() * 256);
    }
    let s = bytes.toString(rng() < 0.2 ? 'base64url' : 'base64');
    const style = Math.floor(rng() * 3);
    if (style === 1) s = s.replace(/(.{76})/g, '$1\n');
    if (style === 2) s = `{"mime": "application/octet-stream", "data": "${s}"}`;
    return s;
  },
  emoji(rng, len, prose) {
    const out = [];
    let size = 0;
    while (size < len) {
      let line;
      const k = Math.floor(rng() * 4);
      if (k === 0) { line = ''; const n = 1 + Math.floor(rng() * 8); for (let i = 0; i < n; i++) line += pick(rng, EMOJI); }
      else if (k === 1) line = sentence(rng, WORDS) + ' ' + pick(rng, EMOJI) + pick(rng, EMOJI);
      else if (k === 2) { const s = pick(rng, prose) || sentence(rng, WORDS); line = pick(rng, EMOJI) + ' ' + s.slice(0, 120); }
      else { const w = []; const n = 3 + Math.floor(rng() * 10); for (let i = 0; i < n; i++) w.push(rng() < 0.4 ? pick(rng, EMOJI) : pick(rng, WORDS)); line = w.join(' '); }
      out.push(line); size += line.length + 1;
    }
    return out.join('\n');
  },
};

// ---- sources per category -------------------------------------------------------
const LOCALE = '/usr/share/locale';
const moFiles = (lang) => walk(path.join(LOCALE, lang, 'LC_MESSAGES'), /\.mo$/);
const manFiles = (lang) => walk(lang ? `/usr/share/man/${lang}` : '/usr/share/man', /\.[1-8]\w*(\.gz)?$/)
  .filter((p) => lang || /^\/usr\/share\/man\/man[1-8]\//.test(p));

function docsFrom(list, loader, limit) {
  // An even spread over the sorted list, at most 'limit' documents.
  const step = Math.max(1, Math.floor(list.length / limit));
  const docs = [];
  for (let i = 0; i < list.length && docs.length < limit; i += step) {
    const text = loader(list[i]);
    if (text && text.length >= MIN_LEN && !text.includes('\uFFFD')) docs.push({ src: list[i], text });
  }
  return docs;
}
function manAndMo(langs, limit) {
  const docs = [];
  for (const l of langs) {
    docs.push(...docsFrom(manFiles(l), renderMan, Math.ceil(limit / langs.length)));
    docs.push(...docsFrom(moFiles(l), (p) => readMo(p, false), Math.ceil(limit / langs.length)));
  }
  return docs;
}
function compactJson(p) {
  try { return JSON.stringify(JSON.parse(readText(p))); } catch { return ''; }
}
function prettyJson(p) {
  try { return JSON.stringify(JSON.parse(readText(p)), null, 2); } catch { return ''; }
}

const jsonFiles = [...walk('/usr/share/doc/nodejs/api', /\.json(\.gz)?$/),
  ...walk('/usr/share/iso-codes/json', /\.json$/), ...walk('/usr/share/cmake-3.25', /\.json$/)];

const SOURCES = {
  'prose-en': () => [...docsFrom(manFiles(null), renderMan, 160),
    ...docsFrom(moFiles('de'), (p) => readMo(p, true), 40)],
  'prose-eu': () => manAndMo(['de', 'fr', 'es', 'it', 'pl', 'nl', 'pt_BR', 'sv', 'cs'], 180),
  'prose-ru': () => manAndMo(['ru', 'uk'], 120),
  'prose-zh': () => manAndMo(['zh_CN', 'zh_TW'], 120),
  'prose-ja': () => manAndMo(['ja'], 120),
  'prose-ko': () => manAndMo(['ko'], 120),
  'prose-ar': () => docsFrom(moFiles('ar'), (p) => readMo(p, false), 40)
    .concat(docsFrom(moFiles('fa'), (p) => readMo(p, false), 20)),
  'code-c': () => docsFrom(walk('/usr/include', /\.[ch]$/), readText, 200)
    .concat(docsFrom(walk('/usr/share/vim', /\.c$/), readText, 10)),
  'code-lua': () => docsFrom(walk('/usr/share/lua/5.4', /\.lua$/), readText, 200),
  'code-python': () => docsFrom(walk('/usr/lib/python3.11', /\.py$/), readText, 200),
  'json-pretty': () => docsFrom(jsonFiles, prettyJson, 120),
  'json-compact': () => docsFrom(jsonFiles, compactJson, 120),
  'markdown': () => docsFrom(walk('/usr/share/doc/nodejs/api', /\.md$/), readText, 150)
    .concat(docsFrom(walk('/usr/share/doc', /\.md(\.gz)?$/), readText, 60)),
  'whitespace': () => docsFrom(walk('/usr/share/misc', /\.ids$/), readText, 10)
    .concat(docsFrom(walk('/usr/share/doc', /^(changelog|NEWS|TODO)/), readText, 30))
    .concat(docsFrom(walk('/usr/include/linux', /\.h$/), (p) => readText(p).replace(/ {8}/g, '\t'), 20)),
};
const GENERATED = ['json-reply-pretty', 'json-reply-compact', 'numbers', 'uuid', 'base64', 'emoji'];

// ---- assemble ---------------------------------------------------------------------
function samplesFrom(docs, cat, split, rng) {
  const pool = docs.filter((d) => splitOf(d.src) === split);
  const out = [];
  if (!pool.length) return out;
  for (let i = 0; out.length < PER_CAT[split] && i < PER_CAT[split] * 4; i++) {
    const d = pool[Math.floor(rng() * pool.length)];
    const text = cut(rng, d.text, logUniform(rng, MIN_LEN, MAX_LEN)).replace(/\u0000/g, '');
    if (text.trim().length >= MIN_LEN / 2) out.push({ cat, src: d.src, text });
  }
  return out;
}

fs.mkdirSync(OUT, { recursive: true });
const proseSentences = [];
const result = { calib: [], eval: [] };
const counts = {};
for (const [cat, load] of Object.entries(SOURCES)) {
  const docs = load();
  for (const split of ['calib', 'eval']) {
    const s = samplesFrom(docs, cat, split, mulberry32(strSeed(cat + split)));
    result[split].push(...s);
    counts[cat] = (counts[cat] || '') + `${split}=${s.length} `;
  }
  if (cat.startsWith('prose-'))
    for (const d of docs.slice(0, 40)) proseSentences.push(...d.text.split(/\n\s*\n/).map((p) => p.trim().replace(/\s+/g, ' ')).filter((p) => p.length > 20 && p.length < 300));
}
const binFiles = walk('/usr/share/man/man1', /\.gz$/).slice(0, 200);
for (const cat of GENERATED) {
  for (const split of ['calib', 'eval']) {
    const rng = mulberry32(strSeed(cat + split));
    const s = [];
    for (let i = 0; i < PER_CAT[split]; i++) {
      const len = logUniform(rng, MIN_LEN, MAX_LEN);
      let text;
      if (cat === 'json-reply-pretty') text = jsonDoc(rng, len, proseSentences, true);
      else if (cat === 'json-reply-compact') text = jsonDoc(rng, len, proseSentences, false);
      else if (cat === 'base64') text = GEN.base64(rng, len, binFiles);
      else if (cat === 'emoji') text = GEN.emoji(rng, len, proseSentences);
      else text = GEN[cat](rng, len);
      s.push({ cat, src: `gen:${cat}:${split}:${i}`, text });
    }
    result[split].push(...s);
    counts[cat] = (counts[cat] || '') + `${split}=${s.length} `;
  }
}
for (const split of ['calib', 'eval']) {
  const body = result[split].map((r) => JSON.stringify(r)).join('\n') + '\n';
  fs.writeFileSync(path.join(OUT, split + '.jsonl'), body);
  const chars = result[split].reduce((a, r) => a + r.text.length, 0);
  process.stderr.write(`${split}: ${result[split].length} samples, ${(chars / 1e6).toFixed(2)} M chars, sha256 ${createHash('sha256').update(body).digest('hex').slice(0, 16)}\n`);
}
for (const [c, v] of Object.entries(counts)) process.stderr.write(`  ${c.padEnd(20)} ${v}\n`);
