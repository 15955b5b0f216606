-- lua5.4 attack/06_scaling.lua [filter]: CPU seconds of each shape at n, 2n, 4n, 8n
-- (host module, build/coax.so); a ratio t(8n)/t(n) well past 8 is superlinear.
package.cpath = "build/?.so;" .. package.cpath
local coax = require "coax"
local filter = arg[1]
local function cpu(f) collectgarbage() local t = os.clock() f() return os.clock() - t end
local function shape(name, n0, make, run)
  if filter and not name:find(filter, 1, true) then return end
  local ts = {}
  for k = 0, 3 do
    local n = n0 * (1 << k)
    local x = make(n)
    local ok, e
    local t = cpu(function() ok, e = pcall(run, x, n) end)
    ts[#ts + 1] = string.format("%.3f", t)
    if not ok then ts[#ts] = ts[#ts] .. "!" .. tostring(e):sub(1, 50) end
    if t > 20 then break end
  end
  print(string.format("%-40s n0=%-8d %s", name, n0, table.concat(ts, " ")))
  io.stdout:flush()
end
local function fmt(f, opts) return assert(coax.schema({ format = f }, { assert_format = true })) end
local formats = { "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4",
  "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
  "relative-json-pointer", "regex" }
local bodies = {
  a = function(n) return ("a"):rep(n) end,
  dotted = function(n) return ("a."):rep(n // 2) .. "a" end,
  slash = function(n) return ("/a~1"):rep(n // 4) end,
  pct = function(n) return "http://x/" .. ("%41"):rep(n // 3) end,
  brace = function(n) return ("{a}"):rep(n // 3) end,
  paren = function(n) return ("("):rep(n // 2) .. (")"):rep(n // 2) end,
  alt = function(n) return ("a|"):rep(n // 2) .. "a" end,
  cls = function(n) return "[" .. ("a-b"):rep(n // 3) .. "]" end,
  quant = function(n) return ("a{1,2}"):rep(n // 6) end,
  uni = function(n) return ("é"):rep(n // 2) end,
  at = function(n) return ("a@"):rep(n // 2) end,
  quoted = function(n) return '"' .. ("\\a"):rep(n // 2) .. '"@x.com' end,
  ipv6 = function(n) return ("1:"):rep(n // 2) .. "1" end,
  digits = function(n) return "P" .. ("1"):rep(n) .. "D" end,
}
for _, f in ipairs(formats) do
  local s = fmt(f)
  for bname, b in pairs(bodies) do
    shape("format " .. f .. " " .. bname, 100000, b, function(x) return s:validate(x) end)
  end
end
