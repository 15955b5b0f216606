// The peers' way: jsonrepair on the whole reply, JSON.parse, ajv to validate.
// Prints "right failed wrong total rate" for the extraction cases (JSON on
// stdin) then two rates, passes over every case a second (../common/
// measure.mjs: warm-up, then the best of 5 rounds): each schema compiled
// once and reused (ajv's compilation is costly, and a host would cache
// it), then every schema compiled on every call, as coax.extract does.
import { readFileSync } from "node:fs";
import { jsonrepair } from "jsonrepair";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { measureBest } from "../common/measure.mjs";

const cases = JSON.parse(readFileSync(0, "utf8"));
let right = 0, failed = 0, wrong = 0;
const wrongNames = [];
for (const c of cases) {
  const schema = JSON.parse(c.schema);
  const ajv = (schema.$schema || "").includes("2020-12") ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
  const validate = ajv.compile(schema);
  let value;
  try { value = JSON.parse(jsonrepair(c.reply)); } catch { value = undefined; }
  const ok = value !== undefined && validate(value);
  if (!ok) { if (c.want === null) right++; else failed++; continue; }
  if (c.want !== null && JSON.stringify(value) === c.want) right++;
  else { wrong++; wrongNames.push(c.name); }
}
const compiled = new Map();
for (const c of cases) {
  if (compiled.has(c.schema)) continue;
  const schema = JSON.parse(c.schema);
  const ajv = (schema.$schema || "").includes("2020-12") ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
  compiled.set(c.schema, ajv.compile(schema));
}
const { rate } = measureBest(() => {
  let n = 0;
  for (const c of cases) {
    try { if (compiled.get(c.schema)(JSON.parse(jsonrepair(c.reply)))) n++; } catch { /* no value */ }
  }
  return n;
});
// The same with every schema compiled on every call, as coax.extract does.
const { rate: rateCompiling } = measureBest(() => {
  let n = 0;
  for (const c of cases) {
    const schema = JSON.parse(c.schema);
    const ajv = (schema.$schema || "").includes("2020-12") ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
    try { if (ajv.compile(schema)(JSON.parse(jsonrepair(c.reply)))) n++; } catch { /* no value */ }
  }
  return n;
});
console.log(`jsonrepair+ajv ${right} ${failed} ${wrong} ${cases.length} ${rate.toFixed(1)} ${rateCompiling.toFixed(1)}`);
if (wrongNames.length) console.error("wrong values: " + wrongNames.join("; "));
