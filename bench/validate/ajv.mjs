// ajv.mjs SCHEMA FILE.jsonl: ajv (formats from ajv-formats) on the same
// instances as bench_validate, printed in the same shape:
//   validate <inst/s> <valid> <n>      validation alone (values parsed first),
//                                      allErrors: true
//   first    <inst/s> <valid> <n>      validation alone, allErrors: false
//                                      (stops at the first error)
//   parse    <inst/s> <valid> <n>      JSON.parse + validate, line by line,
//                                      allErrors: true
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { measureBest } from "../common/measure.mjs";

const [schemaPath, file] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
function compile(allErrors) {
  const ajv = new Ajv2020({ allErrors, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}
const validate = compile(true);
const validateFirst = compile(false);
const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.length);
const values = lines.map((l) => JSON.parse(l));

// Measured as ../common/measure.mjs says (warm-up until the rate is
// stable, then the best of 5 rounds), as bench_validate measures coax.
function measure(fn) {
  const { rate, ok, warm } = measureBest(fn);
  return [lines.length * rate, ok, warm];
}

const [vr, vv, vw] = measure(() => {
  let ok = 0;
  for (const v of values) if (validate(v)) ok++;
  return ok;
});
console.log(`validate ${vr.toFixed(0)} ${vv} ${lines.length} ${vw.toFixed(1)}`);
const [fr, fv, fw] = measure(() => {
  let ok = 0;
  for (const v of values) if (validateFirst(v)) ok++;
  return ok;
});
console.log(`first ${fr.toFixed(0)} ${fv} ${lines.length} ${fw.toFixed(1)}`);
const [pr, pv, pw] = measure(() => {
  let ok = 0;
  for (const l of lines) if (validate(JSON.parse(l))) ok++;
  return ok;
});
console.log(`parse ${pr.toFixed(0)} ${pv} ${lines.length} ${pw.toFixed(1)}`);
