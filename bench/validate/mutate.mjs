// mutate.mjs IN OUT N SEED: N lines, each a line of IN with 1-3 random
// mutations (a member dropped or added, a value's type changed, a string
// altered, an array emptied or grown), for the differential check.
import { readFileSync, writeFileSync } from "node:fs";
const [inp, out, nArg, seedArg] = process.argv.slice(2);
const lines = readFileSync(inp, "utf8").split("\n").filter((l) => l);
let s = Number(seedArg || 3) >>> 0;
const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
const pick = (a) => a[Math.floor(rnd() * a.length)];
function paths(v, p = [], acc = []) {
  acc.push(p);
  if (v && typeof v === "object") for (const k of Object.keys(v)) paths(v[k], [...p, k], acc);
  return acc;
}
const odd = [null, true, 0, -1, 1.5, 1e300, "", "x", "ABC", "2024-13-01", "a@b", [], {}, [1, 1], { a: 1 }, "é~/", "9".repeat(80)];
function mutate(o) {
  const ps = paths(o).filter((p) => p.length);
  if (!ps.length) return o;
  const p = pick(ps), parent = p.slice(0, -1).reduce((x, k) => x[k], o), k = p[p.length - 1];
  const r = rnd();
  if (r < 0.2 && !Array.isArray(parent)) delete parent[k];
  else if (r < 0.35 && !Array.isArray(parent)) parent[pick(["extra", "~odd/key", "x" + Math.floor(rnd() * 9)])] = pick(odd);
  else if (r < 0.7) parent[k] = pick(odd);
  else if (r < 0.85 && typeof parent[k] === "string") parent[k] = parent[k].toLowerCase() + pick(["", " ", "!", "Z"]);
  else if (Array.isArray(parent[k])) parent[k] = rnd() < 0.5 ? [] : [...parent[k], ...parent[k]];
  else if (typeof parent[k] === "number") parent[k] = -parent[k] * 1000 + 0.5;
  else parent[k] = pick(odd);
  return o;
}
const res = [];
for (let i = 0; i < Number(nArg); i++) {
  let o = JSON.parse(pick(lines));
  const m = 1 + Math.floor(rnd() * 3);
  for (let j = 0; j < m; j++) o = mutate(o);
  res.push(JSON.stringify(o));
}
writeFileSync(out, res.join("\n") + "\n");
