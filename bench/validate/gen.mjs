// gen.mjs OUT N [SEED]: N orders for schema.json, one JSON value a line.
// About nine in ten are valid; the rest carry the mistakes models make
// (a wrong type, a missing or extra property, a malformed date, e-mail or
// currency code, a number out of range). Deterministic for a seed.
import { writeFileSync } from "node:fs";

const [out, nArg, seedArg] = process.argv.slice(2);
const n = Number(nArg || 20000);
let s = Number(seedArg || 7) >>> 0;
const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const hex = (k) => Array.from({ length: k }, () => "0123456789abcdef"[int(0, 15)]).join("");
const pad = (x, k) => String(x).padStart(k, "0");
const words = ["alpha", "harbor", "lumen", "cedar", "quartz", "meadow", "orbit", "pixel", "summit", "willow"];
const cities = ["Lyon", "Porto", "Graz", "Ghent", "Turku", "Bergen", "Cork", "Malmö", "Brno", "Split"];

function address() {
  const a = { street: `${int(1, 300)} ${pick(words)} street`, city: pick(cities), country: pick(["FR", "PT", "AT", "BE", "FI", "NO", "IE", "SE", "CZ", "HR"]) };
  if (rnd() < 0.7) a.postal_code = `${int(10000, 99999)}`;
  return a;
}

function order() {
  const items = Array.from({ length: int(1, 6) }, () => {
    const it = { sku: `${pick(["BOK", "ELC", "CLO", "FOD"])}-${int(1000, 999999)}`, name: `${pick(words)} ${pick(words)}`, quantity: int(1, 20), unit_price: int(100, 99999) / 100 };
    if (rnd() < 0.6) it.category = pick(["books", "electronics", "clothing", "food", "toys", "other"]);
    if (rnd() < 0.2) it.discount = int(0, 50) / 100;
    return it;
  });
  const o = {
    id: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
    status: pick(["pending", "paid", "shipped", "cancelled", "refunded"]),
    customer: { name: `${pick(words)} ${pick(words)}`, email: `${pick(words)}.${pick(words)}@example.${pick(["com", "org", "net"])}` },
    items,
    total: Math.round(items.reduce((t, it) => t + it.quantity * it.unit_price, 0) * 100) / 100,
    currency: pick(["EUR", "USD", "GBP", "SEK"]),
    created_at: `2024-${pad(int(1, 12), 2)}-${pad(int(1, 28), 2)}T${pad(int(0, 23), 2)}:${pad(int(0, 59), 2)}:${pad(int(0, 59), 2)}Z`,
  };
  if (rnd() < 0.5) o.customer.phone = `+33 ${int(100, 999)} ${int(100, 999)} ${int(100, 999)}`;
  if (rnd() < 0.3) o.customer.website = `https://${pick(words)}.example.com/`;
  if (rnd() < 0.8) o.shipping = address();
  if (rnd() < 0.4) o.billing = address();
  if (rnd() < 0.5) o.delivery_date = `2024-${pad(int(1, 12), 2)}-${pad(int(1, 28), 2)}`;
  if (rnd() < 0.3) o.notes = rnd() < 0.5 ? null : `leave at the ${pick(words)}`;
  if (rnd() < 0.4) o.tags = [pick(words), pick(cities)];
  return o;
}

const mistakes = [
  (o) => { o.total = String(o.total); },
  (o) => { delete o.currency; },
  (o) => { o.currency = o.currency.toLowerCase(); },
  (o) => { o.created_at = o.created_at.replace("T", " "); },
  (o) => { o.customer.email = "not an address"; },
  (o) => { o.items[0].quantity = 0; },
  (o) => { o.items[0].sku = "bad sku"; },
  (o) => { o.status = "done"; },
  (o) => { o.extra = true; },
  (o) => { o.id = o.id.slice(0, 20); },
];

const lines = [];
for (let i = 0; i < n; i++) {
  const o = order();
  if (rnd() < 0.1) pick(mistakes)(o);
  lines.push(JSON.stringify(o));
}
writeFileSync(out, lines.join("\n") + "\n");
