// gen_invoice.mjs OUT N [SEED]: N invoices for invoice.schema.json, one
// JSON value a line. invoice.schema.json is what Pydantic v2's
// model_json_schema() gives for a set of invoice models (Optional fields
// as anyOf with null, Decimal as number or numeric string, enums and
// nested models as $defs reached by $ref, a discriminated oneOf for the
// payment method, extra="forbid"): 30 $refs, 20 $defs. About nine in ten
// invoices are valid; the rest carry the mistakes models make (a comma
// decimal, a lowercase code, a missing or extra property, a wrong
// discriminator, a malformed date or e-mail, a number out of range).
// Deterministic for a seed.
import { writeFileSync } from "node:fs";

const [out, nArg, seedArg] = process.argv.slice(2);
const n = Number(nArg || 20000);
let s = Number(seedArg || 11) >>> 0;
const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const hex = (k) => Array.from({ length: k }, () => "0123456789abcdef"[int(0, 15)]).join("");
const pad = (x, k) => String(x).padStart(k, "0");
const maybe = (p, f) => (rnd() < p ? f() : undefined);
const words = ["alpha", "harbor", "lumen", "cedar", "quartz", "meadow", "orbit", "pixel", "summit", "willow"];
const cities = ["Lyon", "Porto", "Graz", "Ghent", "Turku", "Bergen", "Cork", "Malmö", "Brno", "Split"];
const countries = ["FR", "DE", "ES", "IT", "NL", "BE", "PT", "AT", "IE", "SE"];
const currencies = ["EUR", "USD", "GBP", "CHF", "SEK"];
const date = () => `2024-${pad(int(1, 12), 2)}-${pad(int(1, 28), 2)}`;
const clean = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function money(x, cur) {
  const a = Math.round(x * 100) / 100;
  return { amount: rnd() < 0.3 ? a.toFixed(2) : a, currency: cur };
}
function address() {
  return clean({
    line1: `${int(1, 300)} ${pick(words)} street`,
    line2: maybe(0.2, () => (rnd() < 0.5 ? null : `Floor ${int(1, 9)}`)),
    city: pick(cities),
    region: maybe(0.3, () => null),
    postal_code: `${int(10000, 99999)}`,
    country: pick(countries),
  });
}
function party() {
  const name = `${pick(words)} ${pick(["GmbH", "SARL", "Ltd", "AB", "BV"])}`;
  return clean({
    name,
    legal_name: maybe(0.3, () => `${name} Holding`),
    tax_id: maybe(0.7, () => ({ scheme: "vat", value: `${pick(countries)}${int(100000000, 999999999)}` })),
    address: address(),
    contact: maybe(0.6, () => clean({
      name: `${pick(words)} ${pick(words)}`,
      email: maybe(0.8, () => `${pick(words)}@${pick(words)}.example.com`),
      phone: maybe(0.5, () => `+33 ${int(100, 999)} ${int(100, 999)} ${int(100, 999)}`),
    })),
    website: maybe(0.3, () => `https://${pick(words)}.example.com/`),
  });
}
function payment(cur) {
  const m = pick([
    () => ({ method: "card", brand: pick(["visa", "mastercard", "amex"]), last4: pad(int(0, 9999), 4) }),
    () => clean({ method: "bank_transfer", iban: `FR76${int(10000000000, 99999999999)}${int(100000000000, 999999999999)}`, bic: maybe(0.6, () => "BNPAFRPPXXX"), reference: maybe(0.5, () => `INV ${int(1000, 9999)}`) }),
    () => ({ method: "paypal", account: `${pick(words)}@example.org` }),
  ]);
  return clean({
    due_date: date(),
    net_days: maybe(0.6, () => pick([14, 30, 45, 60])),
    early_discount_percent: maybe(0.2, () => pick([1, 2, 2.5])),
    method: maybe(0.7, m),
  });
}
function invoice() {
  const cur = pick(currencies);
  let sub = 0, tax = 0;
  const lines = Array.from({ length: int(1, 8) }, (_, i) => {
    const q = pick([1, 1, 2, 3, 5, 10, 0.5]), p = int(100, 99999) / 100;
    const rate = pick([20, 10, 5.5, 0]);
    const t = q * p, tx = (t * rate) / 100;
    sub += t; tax += tx;
    return clean({
      position: i + 1,
      sku: maybe(0.6, () => `${pick(["BK", "EL", "SRV", "HW"])}-${int(1000, 999999)}`),
      description: `${pick(words)} ${pick(words)} ${pick(["service", "licence", "part", "hours"])}`,
      quantity: q,
      unit: maybe(0.5, () => pick(["EA", "H", "DAY"])),
      unit_price: money(p, cur),
      discount: maybe(0.1, () => ({ reason: "loyalty", percent: 5 })),
      taxes: [{ category: rate ? "standard" : "zero", rate, amount: money(tx, cur) }],
      total: money(t, cur),
    });
  });
  return clean({
    id: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
    number: `INV-2024-${pad(int(1, 99999), 5)}`,
    status: maybe(0.7, () => pick(["issued", "paid", "overdue"])),
    issue_date: date(),
    created_at: `${date()}T${pad(int(0, 23), 2)}:${pad(int(0, 59), 2)}:${pad(int(0, 59), 2)}Z`,
    seller: party(),
    buyer: party(),
    ship_to: maybe(0.3, address),
    currency: cur,
    lines,
    totals: clean({ subtotal: money(sub, cur), tax: money(tax, cur), total: money(sub + tax, cur), paid: maybe(0.2, () => money(0, cur)) }),
    payment: maybe(0.8, () => payment(cur)),
    purchase_order: maybe(0.3, () => (rnd() < 0.3 ? null : `PO-${int(1000, 9999)}`)),
    notes: maybe(0.2, () => `Thank you for your ${pick(words)} order.`),
    attachments: maybe(0.2, () => [{ filename: "invoice.pdf", media_type: "application/pdf", size_bytes: int(10000, 900000), sha256: hex(64) }]),
    metadata: maybe(0.3, () => ({ source: pick(["email", "upload", "api"]), batch: `${int(1, 99)}` })),
  });
}

const mistakes = [
  (o) => { o.lines[0].unit_price.amount = String(o.lines[0].unit_price.amount).replace(".", ",") + ",0"; },
  (o) => { o.currency = o.currency.toLowerCase(); },
  (o) => { delete o.totals; },
  (o) => { o.seller.address.country = "France"; },
  (o) => { o.issue_date = "12/03/2024"; },
  (o) => { o.lines[0].quantity = 0; },
  (o) => { o.lines[0].position = "1"; },
  (o) => { o.payment = { due_date: "2024-02-30", method: { method: "wire", iban: "FR7612345" } }; },
  (o) => { o.buyer.contact = { name: "", email: "not an address" }; },
  (o) => { o.total_amount = o.totals.total.amount; },
  (o) => { o.lines[0].taxes[0].rate = 120; },
  (o) => { o.seller.tax_id = { scheme: "vat", value: "fr 123" }; },
];

const out_ = [];
for (let i = 0; i < n; i++) {
  const o = invoice();
  if (rnd() < 0.1) pick(mistakes)(o);
  out_.push(JSON.stringify(o));
}
writeFileSync(out, out_.join("\n") + "\n");
