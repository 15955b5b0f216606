// ajv.mjs SCHEMA FILE.jsonl: ajv (allErrors, formats from ajv-formats) on
// the same instances as bench_validate, printed in the same shape:
//   validate <inst/s> <valid> <n>      validation alone (values parsed first)
//   parse    <inst/s> <valid> <n>      JSON.parse + validate, line by line
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [schemaPath, file] = process.argv.slice(2);
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, "utf8")));
const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.length);
const values = lines.map((l) => JSON.parse(l));

// The best pass of those run in at least 2 s, as bench_validate measures.
function measure(fn) {
  let valid = fn(); // warm up: the JIT compiles the validator
  valid = fn();
  let best = Infinity;
  const t0 = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - t0) / 1e9 < 2.0) {
    const p0 = process.hrtime.bigint();
    valid = fn();
    const d = Number(process.hrtime.bigint() - p0) / 1e9;
    if (d < best) best = d;
  }
  return [lines.length / best, valid];
}

const [vr, vv] = measure(() => {
  let ok = 0;
  for (const v of values) if (validate(v)) ok++;
  return ok;
});
console.log(`validate ${vr.toFixed(0)} ${vv} ${lines.length}`);
const [pr, pv] = measure(() => {
  let ok = 0;
  for (const l of lines) if (validate(JSON.parse(l))) ok++;
  return ok;
});
console.log(`parse ${pr.toFixed(0)} ${pv} ${lines.length}`);
