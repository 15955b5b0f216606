// The peers' way: jsonrepair on the whole reply, JSON.parse, ajv to validate.
// Prints "right failed wrong total" for the extraction cases (JSON on stdin).
import { readFileSync } from "node:fs";
import { jsonrepair } from "jsonrepair";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";

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
console.log(`jsonrepair+ajv ${right} ${failed} ${wrong} ${cases.length}`);
if (wrongNames.length) console.error("wrong values: " + wrongNames.join("; "));
