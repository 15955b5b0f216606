--- Concurrency over real HTTP: N extractions through the OpenAI-compatible
-- agent against the mock model server (spec/mock/server.py), every response
-- held back LATENCY ms, run by `coax batch` with C in flight on one thread.
-- If the waits overlap, the run takes N / C x LATENCY x attempts (the ideal);
-- the ratio to it is what this prints (target: under 1.2). Beside it, the
-- peer: the curl command line sending the same number of requests with
-- `--parallel --parallel-max C` to the same server, in the same run (the
-- transport alone: no sessions, no Lua, no validation).
--
--   lua5.4 bench/http/bench.lua [COAX] [N] [C] [LATENCY_MS]
package.path = "spec/?.lua;" .. package.path
local mock = require "mock.client"

local coax_bin = arg[1] or "build/coax"
local N, C, LATENCY = tonumber(arg[2] or 100), tonumber(arg[3] or 50), tonumber(arg[4] or 200)

local function now_ms()
  local p = io.popen("date +%s%N")
  local t = tonumber(p:read("l")) / 1e6
  p:close()
  return t
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
write(dir .. "/schema.json", '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
  .. '"required":["name","age"],"additionalProperties":false}')
write(dir .. "/recipe.lua", 'return { schema = "schema.json", prompt = "Extract the person: {{input}}" }')
local lines = {}
for i = 1, N do lines[i] = ('{"id": %d, "input": "Person %d is %d."}'):format(i, i, 20 + i % 50) end
write(dir .. "/in.jsonl", table.concat(lines, "\n") .. "\n")

local server = mock.start()
local GOOD = '{"name": "Ada", "age": 36}'
local cases = {
  { name = "1 attempt each", attempts = 1, turns = { "```json\n" .. GOOD .. "\n```" } },
  { name = "2 attempts each", attempts = 2, turns = { '{"name": "Ada"}', GOOD } },
}

print(("coax batch, %d extractions, concurrency %d, %d ms per response (mock server, real HTTP)"):format(N, C, LATENCY))
print(("%-16s %10s %10s %8s %8s %10s %8s"):format("case", "coax ms", "ideal ms", "ratio", "ok", "curl ms",
  "ratio"))
local worst = 0
for _, case in ipairs(cases) do
  local sc = server:scenario({ { by_turn = case.turns, delay_ms = LATENCY, times = N * case.attempts } })
  local out = dir .. "/out-" .. case.attempts .. ".jsonl"
  local cmd = ("%s batch %s/recipe.lua --input %s/in.jsonl --output %s --concurrency %d --agent openai "
    .. "--base-url %s --model bench --quiet"):format(coax_bin, dir, dir, out, C, sc.base_url)
  local t0 = now_ms()
  local ok = os.execute(cmd)
  local ms = now_ms() - t0
  local n_ok = 0
  for l in io.lines(out) do
    if l:find('"outcome":"ok"', 1, true) then n_ok = n_ok + 1 end
  end
  local ideal = math.ceil(N / C) * LATENCY * case.attempts
  local ratio = ms / ideal
  if ratio > worst then worst = ratio end
  -- The peer: N x attempts requests, C at a time, with the same body size.
  local peer = server:scenario({ { reply = GOOD, delay_ms = LATENCY, times = N * case.attempts } })
  local urls = {}
  for i = 1, N * case.attempts do urls[i] = peer.base_url .. "/chat/completions" end
  write(dir .. "/body.json", '{"model":"bench","messages":[{"role":"user","content":"Extract the person: Person 1"}]}')
  local t1 = now_ms()
  os.execute(("curl -s --parallel --parallel-max %d -H 'content-type: application/json' --data-binary @%s/body.json %s "
    .. "> /dev/null 2>&1"):format(C, dir, table.concat(urls, " ")))
  local curl_ms = now_ms() - t1
  print(("%-16s %10.0f %10.0f %8.2f %5d/%d %10.0f %8.2f%s"):format(case.name, ms, ideal, ratio, n_ok, N, curl_ms,
    curl_ms / ideal, ok and "" or " (coax exit != 0)"))
end
server:stop()
os.execute("rm -rf " .. dir)
print(("worst ratio %.2f (target < 1.20): %s"):format(worst, worst < 1.2 and "met" or "NOT met"))
