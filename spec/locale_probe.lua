--- Run by spec/locale_spec.lua in a process of its own:
--   lua5.4 spec/locale_probe.lua LOCALE
-- sets LC_NUMERIC to LOCALE, as a host may (GTK and Qt call setlocale(LC_ALL,
-- "") at start), then converts numbers every way coax does (repair, extract,
-- validation, examples, the Lua module's JSON, a recipe's own Lua) and prints
-- one JSON line of what came out. The spec runs it under "C" and under
-- locales whose decimal point is not '.', and the lines must be equal.
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
local coax = require "coax"
local json = coax.json

local locale = assert(arg[1], "usage: locale_probe.lua LOCALE")
assert(os.setlocale(locale, "numeric") == locale, "cannot set LC_NUMERIC to " .. locale)

local out = { host = string.format("%.1f", 1.5) } -- the host's own Lua follows the locale

-- Numbers of a reply, read into Lua values of the host.
-- (more digits than a double holds stay text, hunt15; 16 and 17 digits a double holds read as floats)
out.repair = coax.repair("[1.5e3, 3.14159265358979323846, 0.1, -2.5E-3, 12345678901234567890.5, "
  .. "3.141592653589793, 12345678901234567000.0]")

-- Schemas whose keywords are fractions, given as tables (numbers written by
-- coax) and as text (numbers kept as written).
local function extract(reply, schema)
  local r = coax.extract(reply, schema)
  local errors = {}
  for i, e in ipairs(r.errors) do errors[i] = e.error end
  return { valid = r.valid, errors = errors, value = r.value }
end
out.maximum = extract('{"a": 1.5}', { type = "object", properties = { a = { type = "number", maximum = 1.2 } } })
out.multiple = extract('{"a": 1.3}', { type = "object", properties = { a = { multipleOf = 0.5 } } })
out.multiple_long = extract('{"a": 0.2469135780246913578}',
  '{"properties": {"a": {"multipleOf": 0.1234567890123456789}}}')
out.to_number = extract('{"a": "2.5"}', { type = "object", properties = { a = { type = "number" } } })

-- Examples: numbers coax writes itself.
out.example = coax.example({ type = "number", minimum = 1.5, maximum = 1.7 })
out.example_object = coax.example({ type = "object", properties = { p = { type = "number",
  exclusiveMinimum = 0.25, maximum = 0.3 } }, required = { "p" } })

-- The module's JSON, both ways.
out.encoded = json.encode({ 1.5, 0.1, 1e300, -2.5e-7 })
out.decoded = json.decode("[1.5, 2.5e1, 0.125]")

-- A recipe's Lua (the engine's own Lua state) and its cjson: the first
-- reply is rejected with everything it computed as the reason.
-- The digits of 2^-1075, the halfway point between 0 and the least double.
local HALF = "2470328229206232720882843964341106861825299013071623822127928412503377536351043759326499181808179961"
  .. "8989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435"
  .. "9318028499365361525003193704576782492193656236698636584807570015857692699037063119282795585513329278"
  .. "3433840935197801553124659726357957462276646527282722005637400648549997709659947045402082816622623785"
  .. "7393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914"
  .. "4672918403005300575308490487653917113865916462395249126236538818796362393732804238910186723484976682"
  .. "3508986338858792562830275599565752445550725518931369083625477918694866799496832404970582102851318545"
  .. "1396213837722826145437693412532098591327667236328125"
local numerals = {
  "1.5", "1.5e3", "1.5E+3", "00012.50", ".5", "5.", " 1.5 ", "0x1.8p1", "1,5", "-0.0", "1e-400", "1e400",
  -- no digit before the point, and the point alone (a comma locale's strtod reads ",5" as a half)
  "-.5", " .5", "+.5", ",5", "-,5",
  -- exponents past the clamp whose sum with the digits' own is 0: both are 1
  "0." .. ("0"):rep(150000) .. "1e150001", "1" .. ("0"):rep(150000) .. ".5e-150000",
  -- the exact halfway point between 0 and the least double (752 digits) rounds to even, 0; with 300 zeros
  -- after it too (all past the 768 digits kept); with a 1 after those, up to the least double
  "2." .. HALF:sub(2) .. "e-324", "2." .. HALF:sub(2) .. ("0"):rep(300) .. "e-324",
  "2." .. HALF:sub(2) .. ("0"):rep(300) .. "1e-324",
  -- hex numerals: their point is '.' too (a comma locale's strtod read "0x1,8p1" as 3 and "0x1.8" as 1)
  "0x1.8", "0x1,8p1", "-0x.8p-1", " 0x1.8P+1", "0x", "0x.p1",
}
local recipe = [[
local cjson = require "cjson"
local numerals = ]] .. string.format("%q", json.encode(numerals)) .. [[

local read = {}
for i, s in ipairs(cjson.decode(numerals)) do
  local n = tonumber(s)
  read[i] = n and string.format("%a", n) or "nil"
end
local computed = cjson.encode({
  written = tostring(1.5) .. " " .. 2.5 .. " " .. tostring(1e100),
  format = string.format("%.2f %g %e %a %5.1f", 2.25, 0.5, 1234.5, 1.5, -3.25),
  read = read, cjson_encoded = cjson.encode({ 1.5, 0.1 }), cjson_decoded = cjson.decode("[1,5, 2.5e1, 0.75]"),
  cjson_hex = cjson.decode("[0x1,8, 0x1.8, -0x.4p4]"),
})
return { name = "locale", schema = { type = "object", properties = { n = { type = "number" } } },
  prompt = computed .. "\n", max_attempts = 1 }
]]
local run = coax.run(recipe, "x", { source = true, replies = { '{"n": 1.25}' } })
if not (run.attempts and run.attempts[1]) then error(tostring(run.error and run.error.message)) end
out.run = { outcome = run.outcome, value = run.value,
  computed = json.decode(run.attempts[1].messages[1].content:match("^[^\n]*")),
  times_are_numbers = math.type(run.metrics.wall_ms) == "float" and math.type(run.attempts[1].elapsed_ms) == "float" }

print(json.encode(out))
