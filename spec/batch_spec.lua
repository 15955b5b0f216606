local H = require "helper"
local coax = require "coax"
local json = coax.json

local F = "spec/fixtures/batch/"
local RECIPE = F .. "person.lua"
local ZERO = '{"attempts":0,"wall_ms":0,"engine_ms":0,"agent_ms":0,"input_tokens_est":0,'
  .. '"output_tokens_est":0,"input_tokens":null,"output_tokens":null,"repairs":0,"coercions":0}'

local function lines(text)
  local t = {}
  for l in text:gmatch("([^\n]*)\n") do t[#t + 1] = l end
  return t
end

-- Times vary from run to run; everything else in a line is exact.
local function untimed(line)
  return (line:gsub('"(%a+_ms)":[%d.]+', '"%1":T'))
end

-- n input lines, each with the one reply that succeeds.
local function people(n, first)
  local t = {}
  for i = first or 1, (first or 1) + n - 1 do
    t[#t + 1] = json.encode({ id = i, input = "P" .. i .. " is " .. i .. ".",
      replies = { ('{"name": "P%d", "age": %d}'):format(i, i) } })
  end
  return table.concat(t, "\n") .. "\n"
end

-- Decodes every line (each must parse) and counts each id.
local function ids_of(text)
  local seen, n = {}, 0
  for _, l in ipairs(lines(text)) do
    local v = json.decode(l)
    seen[v.id] = (seen[v.id] or 0) + 1
    n = n + 1
  end
  return seen, n
end

local function all_once(seen, n)
  for i = 1, n do
    if seen[i] ~= 1 then return ("id %d seen %d times"):format(i, seen[i] or 0) end
  end
  return true
end

-- The batch's own time from its summary, in seconds.
local function batch_time(err)
  return tonumber(err:match("lines in ([%d.]+) s"))
end

local function sum_wall(out)
  local s = 0
  for _, l in ipairs(lines(out)) do s = s + json.decode(l).metrics.wall_ms end
  return s / 1e3
end

local function shell(script)
  local path = H.tmpfile(script)
  local ok, how, code = os.execute("sh " .. H.quote(path))
  os.remove(path)
  return ok and 0 or (how == "signal" and 128 + code or code)
end

local function coax_cmd()
  local wrap = os.getenv("COAX_WRAP") or ""
  return "env -u LD_PRELOAD " .. wrap .. " " .. H.quote(H.build .. "/coax")
end

local function count_lines(path)
  local f = io.open(path, "rb")
  if not f then return 0 end
  local s = f:read("a")
  f:close()
  return select(2, s:gsub("\n", ""))
end

local tmp
setup(function()
  tmp = os.tmpname()
  os.remove(tmp)
  assert(os.execute("mkdir -p " .. H.quote(tmp)))
end)
teardown(function() os.execute("rm -rf " .. H.quote(tmp)) end)

describe("coax batch", function()
  it("writes one exact line per input line: the value, or the error and the last attempt's errors", function()
    local out, err, code = H.coax({ "batch", RECIPE, "--input", F .. "people.jsonl", "--replies-field", "replies",
      "--concurrency", "1" })
    local got = lines(out)
    for i, l in ipairs(got) do got[i] = untimed(l) end
    assert.are.same({
      '{"id":1,"outcome":"ok","value":{"name":"Ada","age":36},"class":"lossless",'
        .. '"metrics":{"attempts":1,"wall_ms":T,"engine_ms":T,'
        .. '"agent_ms":T,"input_tokens_est":58,"output_tokens_est":12,"input_tokens":null,"output_tokens":null,'
        .. '"repairs":0,"coercions":0}}',
      '{"id":"b2","outcome":"ok","value":{"name":"Bob","age":40},"class":"inferred",'
        .. '"metrics":{"attempts":1,"wall_ms":T,"engine_ms":T,'
        .. '"agent_ms":T,"input_tokens_est":58,"output_tokens_est":18,"input_tokens":null,"output_tokens":null,'
        .. '"repairs":1,"coercions":1}}',
      '{"id":3,"outcome":"exhausted","error":{"code":"exhausted","message":"2 attempts used up; the last failed: '
        .. '1 validation error, the first at \'/age\': expected integer, got string \\"old\\""},'
        .. '"errors":[{"instanceLocation":"/age","keywordLocation":"/properties/age/type",'
        .. '"error":"expected integer, got string \\"old\\""}],"metrics":{"attempts":2,"wall_ms":T,"engine_ms":T,'
        .. '"agent_ms":T,"input_tokens_est":187,"output_tokens_est":18,"input_tokens":null,"output_tokens":null,'
        .. '"repairs":0,"coercions":0}}',
      '{"id":4,"outcome":"ok","value":{"name":"Di","age":29},"class":"lossless",'
        .. '"metrics":{"attempts":2,"wall_ms":T,"engine_ms":T,'
        .. '"agent_ms":T,"input_tokens_est":175,"output_tokens_est":16,"input_tokens":null,"output_tokens":null,'
        .. '"repairs":0,"coercions":0}}',
      '{"id":5,"outcome":"agent_error","error":{"code":"agent_error",'
        .. '"message":"replay agent: no reply left (0 given)"},'
        .. '"metrics":{"attempts":1,"wall_ms":T,"engine_ms":T,"agent_ms":T,"input_tokens_est":55,'
        .. '"output_tokens_est":0,"input_tokens":null,"output_tokens":null,"repairs":0,"coercions":0}}',
    }, got)
    assert.are.equal(1, code)
    assert.matches("^coax batch: 5 lines in [%d.]+ s %([%d.]+ lines/s%)\n"
      .. "  outcomes: ok 3, exhausted 1, agent_error 1\n"
      .. "  attempts: 1: 3, 2: 2\n"
      .. "  tokens: 533 in, 64 out %(estimated%)\n$", err)
  end)

  it("uses the same field names in its metrics as the session report", function()
    local out = H.coax({ "batch", RECIPE, "--input", F .. "people.jsonl", "--replies-field", "replies", "--quiet" })
    local report = coax.run(RECIPE, "Ada is 36.", { replies = { '{"name": "Ada", "age": 36}' } })
    local want = {}
    for k in pairs(report.metrics) do want[#want + 1] = k end
    table.sort(want)
    for _, l in ipairs(lines(out)) do
      local got = {}
      for k in pairs(json.decode(l).metrics) do got[#got + 1] = k end
      table.sort(got)
      assert.are.same(want, got)
    end
  end)

  -- A value nested 510 deep is within the default max_depth (512), but the report
  -- holds it 3 levels deeper ({"attempts": [{"value": ...}]}): read back from the
  -- report's text, these lines had zero metrics and, failed, the error "no_report".
  it("takes a line's metrics and error from the session, whatever the depth of its value", function()
    local recipe = tmp .. "/deep.lua"
    H.write(recipe, 'return { schema = { type = "array", maxItems = 0 }, prompt = "{{input}}", max_attempts = 1 }')
    local deep = ("["):rep(510) .. ("]"):rep(510)
    local out, err, code = H.coax({ "batch", recipe, "--replies-field", "replies" },
      json.encode({ id = 1, input = "x", replies = { "[" .. deep .. "]" } }) .. "\n"
        .. json.encode({ id = 2, input = "x", replies = { "[]" } }) .. "\n")
    local got = lines(out)
    assert.are.equal(2, #got)
    local metrics = '"metrics":{"attempts":1,"wall_ms":T,"engine_ms":T,"agent_ms":T,"input_tokens_est":27,'
      .. '"output_tokens_est":%d,"input_tokens":null,"output_tokens":null,"repairs":0,"coercions":0}}'
    assert.are.equal('{"id":1,"outcome":"exhausted","error":{"code":"exhausted","message":"1 attempt used up; '
      .. 'the last failed: 1 validation error, the first at \'\': expected at most 0 items, got 1"},'
      .. '"errors":[{"instanceLocation":"","keywordLocation":"/maxItems","error":"expected at most 0 items, got 1"}],'
      .. metrics:format(511), untimed(got[1])) -- 511 exact: two runs of one mark (README, "Punctuation runs")
    assert.are.equal('{"id":2,"outcome":"ok","value":[],"class":"lossless",' .. metrics:format(1), untimed(got[2]))
    assert.are.equal(1, code)
    assert.matches("attempts: 1: 2\n", err, 1, true)
  end)

  it("says the least certain class of each value: a guess max_class = \"invented\" took never looks plain (hunt15)",
    function()
      local recipe = tmp .. "/guess.lua"
      H.write(recipe, 'return { schema = { type = "object", properties = { n = { type = "integer" } } }, '
        .. 'prompt = "{{input}}", max_attempts = 1, max_class = "invented" }')
      local out, _, code = H.coax({ "batch", recipe, "--replies-field", "replies", "--quiet", "--concurrency", "1" },
        json.encode({ id = 1, input = "x", replies = { '{"n": 1, "n": 2}' } }) .. "\n"
          .. json.encode({ id = 2, input = "x", replies = { '{"n": "3"}' } }) .. "\n"
          .. json.encode({ id = 3, input = "x", replies = { '{"n": 4}' } }) .. "\n")
      local got = lines(out)
      for i, l in ipairs(got) do got[i] = l:gsub(',"metrics":.*', "}") end
      assert.are.same({ '{"id":1,"outcome":"ok","value":{"n":2},"class":"invented"}',
        '{"id":2,"outcome":"ok","value":{"n":3},"class":"inferred"}',
        '{"id":3,"outcome":"ok","value":{"n":4},"class":"lossless"}' }, got)
      assert.are.equal(0, code)
    end)

  it("gives every line the replies of --replay, from the start", function()
    local replies = H.tmpfile('"nothing here"\n"{\\"name\\": \\"X\\", \\"age\\": 1}"\n')
    local out, _, code = H.coax({ "batch", RECIPE, "--replay", replies, "--quiet", "--concurrency", "1" },
      '{"id": "a", "input": "one"}\n{"id": "b", "input": "two"}\n')
    os.remove(replies)
    local got = lines(out)
    assert.are.equal(2, #got)
    for i, id in ipairs({ "a", "b" }) do
      local v = json.decode(got[i])
      assert.are.same({ id, "ok", 2 }, { v.id, v.outcome, v.metrics.attempts })
      assert.are.equal('{"name":"X","age":1}', json.encode(v.value))
    end
    assert.are.equal(0, code)
  end)

  it("reads other field names, and passes a non-string input as its JSON text", function()
    local out, _, code = H.coax({ "batch", RECIPE, "--id-field", "key", "--input-field", "text",
      "--replies-field", "r", "--quiet" },
      '{"key": "k1", "text": {"who": "Ada"}, "r": ["{\\"name\\": \\"Ada\\", \\"age\\": 36}"]}\n')
    local v = json.decode(out)
    assert.are.equal("k1", v.id)
    assert.are.equal("ok", v.outcome)
    assert.are.equal(0, code)
  end)

  it("answers a malformed line with outcome invalid and a reason, and goes on", function()
    local out, err, code = H.coax({ "batch", RECIPE, "--input", F .. "malformed.jsonl", "--replies-field", "replies",
      "--concurrency", "1" })
    local function invalid(id, message)
      return '{"id":' .. id .. ',"outcome":"invalid","error":{"code":"invalid_input","message":'
        .. message .. '},"metrics":' .. ZERO .. '}'
    end
    local got = lines(out)
    local ok1, ok10 = json.decode(table.remove(got, 1)), json.decode(table.remove(got))
    assert.are.same({ 1, "ok", 10, "ok" }, { ok1.id, ok1.outcome, ok10.id, ok10.outcome })
    assert.are.same({
      invalid('null,"line":2', '"not JSON: unexpected end of input, expected \',\' or a closing bracket (column 25)"'),
      invalid('null,"line":3', '"not a JSON object but an array"'),
      invalid('null,"line":5', '"no \\"id\\" (a string or a number)"'),
      invalid('null,"line":6', '"\\"id\\" must be a string or a number, not an object"'),
      invalid('7', '"no \\"input\\""'),
      invalid('8', '"\\"input\\" is null"'),
      invalid('9', '"\\"replies\\" must be an array of strings"'),
    }, got)
    assert.are.equal(1, code)
    assert.matches("outcomes: ok 2, invalid 7\n  attempts: 0: 7, 1: 2\n", err, 1, true)
  end)

  it("answers a line longer than --max-input with outcome invalid, and reads the next", function()
    local long = '{"id": 1, "input": "' .. ("x"):rep(300) .. '"}'
    local out, _, code = H.coax({ "batch", RECIPE, "--max-input", "200", "--replies-field", "replies", "--quiet" },
      long .. "\n" .. '{"id": 2, "input": "Ada", "replies": ["{\\"name\\": \\"Ada\\", \\"age\\": 36}"]}\n')
    local got = lines(out)
    assert.are.equal('{"id":null,"line":1,"outcome":"invalid","error":{"code":"invalid_input",'
      .. '"message":"longer than --max-input (200 bytes)"},"metrics":' .. ZERO .. '}', got[1])
    assert.are.same({ 2, "ok" }, { json.decode(got[2]).id, json.decode(got[2]).outcome })
    assert.are.equal(2, #got)
    assert.are.equal(1, code)
  end)

  describe("concurrency", function()
    -- Each reply waits 300 ms in the engine's timers (replay delay_ms).
    local input = people(16)
    local function batch(n)
      local out, err, code = H.coax({ "batch", RECIPE, "--replies-field", "replies", "--concurrency", tostring(n),
        "--agent-options", '{"delay_ms": 300}' }, input)
      assert.are.equal(0, code)
      local seen, count = ids_of(out)
      assert.are.equal(16, count)
      assert.is_true(all_once(seen, 16))
      return sum_wall(out) / batch_time(err)
    end

    it("keeps N extractions in flight on one thread: the batch takes a fraction of the sum of its lines", function()
      -- 16 in flight: ideally 16 times faster than one after another.
      local ratio = batch(16)
      assert.is_true(ratio > 6, ("sum of line times / batch time = %.2f"):format(ratio))
    end)

    it("never has more than N in flight", function()
      -- 4 in flight: at most 4 lines' time overlap, so the ratio cannot pass 4.
      local ratio = batch(4)
      assert.is_true(ratio > 2.5 and ratio < 4.4, ("sum of line times / batch time = %.2f"):format(ratio))
    end)
  end)

  it("spaces requests to stay under --rpm", function()
    local input = people(4)
    local function time(extra)
      local args = { "batch", RECIPE, "--replies-field", "replies", "--concurrency", "4",
        "--agent-options", '{"delay_ms": 100}' }
      for _, a in ipairs(extra) do args[#args + 1] = a end
      local _, err, code = H.coax(args, input)
      assert.are.equal(0, code)
      return batch_time(err)
    end
    -- 300 a minute: one request every 200 ms, so the 4th starts 600 ms in.
    local ratio = time({ "--rpm", "300" }) / time({})
    assert.is_true(ratio > 3, ("capped / uncapped = %.2f"):format(ratio))
  end)

  describe("resume", function()
    it("survives kill -9 mid-run: --resume completes the rest, every id exactly once", function()
      local input_path, out_path = tmp .. "/kill.in.jsonl", tmp .. "/kill.out.jsonl"
      local f = assert(io.open(input_path, "wb"))
      f:write(people(60))
      f:close()
      local args = table.concat({ H.quote(RECIPE), "--input", H.quote(input_path), "--output", H.quote(out_path),
        "--replies-field", "replies", "--concurrency", "4", "--agent-options", H.quote('{"delay_ms": 100}') }, " ")
      local p = assert(io.popen("sh -c " .. H.quote(coax_cmd() .. " batch " .. args
        .. " --quiet </dev/null >/dev/null 2>&1 & echo $!")))
      local pid = tonumber(p:read("l"))
      p:close()
      -- Wait for a few lines (the guard only prevents a hang), then kill.
      for _ = 1, 1500 do
        if count_lines(out_path) >= 8 then break end
        os.execute("sleep 0.02")
      end
      os.execute("kill -9 " .. pid)
      while os.execute("kill -0 " .. pid .. " 2>/dev/null") do os.execute("sleep 0.02") end
      local before = count_lines(out_path)
      assert.is_true(before >= 8 and before < 60, "lines written before the kill: " .. before)

      local _, err, code = H.coax({ "batch", RECIPE, "--input", input_path, "--output", out_path,
        "--replies-field", "replies", "--concurrency", "4", "--resume" })
      assert.are.equal(0, code)
      assert.matches(("%d lines in [%%d.]+ s %%([%%d.]+ lines/s%%), %d skipped as done %%(%%-%%-resume%%)")
        :format(60 - before, before), err)
      local seen, n = ids_of(H.read(out_path))
      assert.are.equal(60, n)
      assert.is_true(all_once(seen, 60))
    end)

    it("cuts a torn last line away before appending, and redoes its id", function()
      local out_path = tmp .. "/torn.out.jsonl"
      local input = people(3)
      local _, _, code = H.coax({ "batch", RECIPE, "--output", out_path, "--replies-field", "replies",
        "--concurrency", "1", "--quiet" }, people(2))
      assert.are.equal(0, code)
      local f = assert(io.open(out_path, "ab"))
      f:write('{"id":3,"outcome":"ok","val') -- killed in the middle of a write
      f:close()
      local out, err
      out, err, code = H.coax({ "batch", RECIPE, "--output", out_path, "--replies-field", "replies", "--resume" },
        input)
      assert.are.equal("", out)
      assert.are.equal(0, code)
      assert.matches("cut a torn last line (27 bytes) from " .. out_path, err, 1, true)
      assert.matches("1 lines in [%d.]+ s %([%d.]+ lines/s%), 2 skipped as done", err)
      local seen, n = ids_of(H.read(out_path))
      assert.are.equal(3, n)
      assert.is_true(all_once(seen, 3))
    end)

    it("keeps one output line per input line when ids repeat, and skips done malformed lines by number", function()
      local out_path = tmp .. "/dup.out.jsonl"
      local input = people(1) .. people(1) .. "not json\n" .. people(1, 2)
      -- first run: only the first two lines get done
      H.coax({ "batch", RECIPE, "--output", out_path, "--replies-field", "replies", "--quiet" }, people(1) .. people(1))
      local _, _, code = H.coax({ "batch", RECIPE, "--output", out_path, "--replies-field", "replies", "--resume",
        "--quiet" }, input)
      assert.are.equal(1, code)
      local got = lines(H.read(out_path))
      assert.are.equal(4, #got)
      local ids = {}
      for i, l in ipairs(got) do
        local v = json.decode(l)
        ids[i] = v.id == json.null and ("line " .. v.line) or tostring(v.id)
      end
      assert.are.same({ "1", "1", "line 3", "2" }, ids)
      -- and once more: everything is done
      local out2, err2
      out2, err2, code = H.coax({ "batch", RECIPE, "--output", out_path, "--replies-field", "replies", "--resume" },
        input)
      assert.are.same({ "", 0 }, { out2, code })
      assert.matches("0 lines in [%d.]+ s %(0.0 lines/s%), 4 skipped as done", err2)
    end)

    -- FNV-1a's low 18 bits (a table of 2^18 slots holds 2^17 ids) depend
    -- only on the low 18 bits of its state, so two 4-letter blocks that meet
    -- there stay met whatever follows: a block pair per position spells 2^k
    -- ids whose keys share those bits.
    local function colliding_ids(bits)
      local P, MASK = 1099511628211, (1 << 18) - 1
      local function step(h, s)
        for i = 1, #s do h = ((h ~ s:byte(i)) * P) & MASK end
        return h
      end
      local abc = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
      local h, blocks = step(1469598103934665603 & MASK, '"'), {}
      for pos = 1, bits do
        local seen = {}
        for a = 1, 62 do
          for b = 1, 62 do
            for c = 1, 62 do
              for d = 1, 62 do
                local blk = abc:sub(a, a) .. abc:sub(b, b) .. abc:sub(c, c) .. abc:sub(d, d)
                local v = step(h, blk)
                if seen[v] then
                  blocks[pos] = { seen[v], blk }
                  goto found
                end
                seen[v] = blk
              end
            end
          end
        end
        ::found::
        h = step(h, blocks[pos][1])
      end
      local function id(i)
        local t = {}
        for pos = 1, bits do t[pos] = blocks[pos][((i >> (pos - 1)) & 1) + 1] end
        return table.concat(t)
      end
      -- the attack is real: two different keys, the same low bits
      assert.are_not.equal(id(0), id(3))
      assert.are.equal(step(1469598103934665603 & MASK, '"' .. id(0) .. '"'),
        step(1469598103934665603 & MASK, '"' .. id(3) .. '"'))
      return id
    end

    it("keeps its ids in a seeded hash: crafted colliding ids take linear time", function()
      local id = colliding_ids(17)
      -- OUT holds n done ids and the input the same ids: --resume skips them
      -- all (and writes nothing, so the files serve every run)
      local function files(n)
        local out_path, in_path = ("%s/collide%d.out.jsonl"):format(tmp, n), ("%s/collide%d.in.jsonl"):format(tmp, n)
        local o, i = assert(io.open(out_path, "wb")), assert(io.open(in_path, "wb"))
        for k = 0, n - 1 do
          o:write('{"id":"', id(k), '","outcome":"ok","value":1}\n')
          i:write('{"id":"', id(k), '","input":"x"}\n')
        end
        o:close()
        i:close()
        return { out_path, in_path, n }
      end
      local function wall(f)
        local clock = io.popen("date +%s%N")
        local t0 = tonumber(clock:read("l"))
        clock:close()
        local _, err, code = H.coax({ "batch", RECIPE, "--input", f[2], "--output", f[1], "--resume",
          "--replies-field", "replies" })
        clock = io.popen("date +%s%N")
        local t1 = tonumber(clock:read("l"))
        clock:close()
        assert.are.equal(0, code, err)
        assert.matches(f[3] .. " skipped as done", err)
        return (t1 - t0) / 1e9
      end
      -- n against 4n ids (linear 4, quadratic 16), bound 8: 2n against n
      -- with bound 3 left too little room on a loaded machine (CI, ASan).
      -- The first 2^15 ids meet in the hash's low 18 bits as all 2^17 do.
      local n, n4 = files(1 << 15), files(1 << 17)
      wall(n) -- warm the caches
      -- the least of three runs each: the machine is shared, the other runs are noise
      local t1, t4 = math.huge, math.huge
      for _ = 1, 3 do
        t1, t4 = math.min(t1, wall(n)), math.min(t4, wall(n4))
      end
      assert.is_true(t4 / t1 < 8, ("time(%d ids) / time(%d ids) = %.2f (%.2f s / %.2f s; linear 4, quadratic 16)")
        :format(1 << 17, 1 << 15, t4 / t1, t4, t1))
    end)

    it("refuses an OUT that holds something else, and --resume to standard output", function()
      local out_path = H.tmpfile('{"id":1,"outcome":"ok"}\nhello\n')
      local _, err, code = H.coax({ "batch", RECIPE, "--output", out_path, "--replies-field", "replies",
        "--resume" }, "")
      assert.are.equal(2, code)
      assert.are.equal("coax batch: --resume: " .. out_path .. " line 2 is not an output line of coax batch "
        .. '(a JSON object with an "id")\n', err)
      os.remove(out_path)
      _, err, code = H.coax({ "batch", RECIPE, "--resume" }, "")
      assert.are.same({ "coax batch: --resume needs --output FILE (it reads back what the file holds)\n", 2 },
        { err, code })
    end)
  end)

  it("is a streaming filter with -: a line's output comes out before the next line comes in", function()
    local out_path, mark = tmp .. "/stream.out.jsonl", tmp .. "/stream.timeout"
    local first = json.encode({ id = "first", input = "Ada", replies = { '{"name": "Ada", "age": 36}' } })
    local second = json.encode({ id = "second", input = "Bob", replies = { '{"name": "Bob", "age": 40}' } })
    -- The producer writes the second line only once the first one's output is
    -- there: a command that read its whole input first would never get it
    -- (the loop's bound only turns that hang into a failure).
    local code = shell(([[
{ printf '%%s\n' %s
  i=0
  until grep -q '"id":"first"' %s 2>/dev/null; do
    sleep 0.02; i=$((i+1)); if [ $i -ge 1500 ]; then echo timeout > %s; break; fi
  done
  printf '%%s\n' %s
} | %s batch %s --input - --output - --replies-field replies --quiet > %s
]]):format(H.quote(first), H.quote(out_path), H.quote(mark), H.quote(second), coax_cmd(), H.quote(RECIPE),
      H.quote(out_path)))
    assert.are.equal(0, code)
    assert.is_nil(io.open(mark))
    local got = lines(H.read(out_path))
    assert.are.same({ "first", "second" }, { json.decode(got[1]).id, json.decode(got[2]).id })
  end)

  it("runs under GNU parallel --pipe with 4 workers: every id comes out exactly once", function()
    local input_path, out_path, err_path = tmp .. "/par.in.jsonl", tmp .. "/par.out.jsonl", tmp .. "/par.err"
    local f = assert(io.open(input_path, "wb"))
    f:write(people(100))
    f:close()
    local code = shell(("parallel --will-cite --pipe -j4 -N10 %s batch %s --replies-field replies < %s > %s 2> %s")
      :format(coax_cmd(), H.quote(RECIPE), H.quote(input_path), H.quote(out_path), H.quote(err_path)))
    assert.are.equal(0, code)
    local seen, n = ids_of(H.read(out_path))
    assert.are.equal(100, n)
    assert.is_true(all_once(seen, 100))
    -- ten jobs of ten lines, each with its own summary
    local _, jobs = H.read(err_path):gsub("coax batch: 10 lines in", "")
    assert.are.equal(10, jobs)
  end)

  describe("exit status", function()
    it("is 0 when every line succeeded, with --quiet silent", function()
      local out, err, code = H.coax({ "batch", RECIPE, "--replies-field", "replies", "--quiet" }, people(3))
      assert.are.same({ 3, "", 0 }, { #lines(out), err, code })
    end)

    it("is 0 with --allow-failed when lines failed", function()
      local _, _, code = H.coax({ "batch", RECIPE, "--input", F .. "people.jsonl", "--replies-field", "replies",
        "--allow-failed", "--quiet" })
      assert.are.equal(0, code)
    end)

    it("is 2 for an invalid recipe or schema, before any line and any call", function()
      local dir = tmp .. "/bad"
      os.execute("mkdir -p " .. H.quote(dir))
      local f = assert(io.open(dir .. "/colour.lua", "w"))
      f:write('return { schema = "../../../' .. F .. 'person.schema.json", prompt = "x", colour = "red" }')
      f:close()
      f = assert(io.open(dir .. "/schema.lua", "w"))
      f:write('return { schema = { type = "nope" }, prompt = "x", agent = "replay" }')
      f:close()
      local out_path = dir .. "/out.jsonl"
      local _, err, code = H.coax({ "batch", dir .. "/colour.lua", "--output", out_path, "--replies-field", "replies" },
        people(2))
      assert.are.same({ "coax batch: " .. dir .. "/colour.lua: unknown recipe field 'colour'\n", 2 }, { err, code })
      assert.is_nil(io.open(out_path))
      _, err, code = H.coax({ "batch", dir .. "/schema.lua", "--output", out_path }, people(2))
      assert.are.equal(2, code)
      assert.matches("^coax batch: " .. dir:gsub("%p", "%%%0")
        .. "/schema.lua: recipe schema: invalid schema at \"/type\": ", err)
      assert.is_nil(io.open(out_path))
    end)

    it("runs a recipe whose prompt fails on some inputs: those lines are script errors, with the traceback", function()
      local recipe = F .. "person_json.lua"
      local good = '{"id": 1, "input": {"text": "Ada is 36."}, "r": ["{\\"name\\": \\"Ada\\", \\"age\\": 36}"]}\n'
      local out, _, code = H.coax({ "batch", recipe, "--replies-field", "r", "--quiet" },
        "\n" .. good .. '{"id": 2, "input": "not an object"}\n')
      local got = lines(out)
      assert.are.same({ 1, "ok" }, { json.decode(got[1]).id, json.decode(got[1]).outcome })
      local second = json.decode(got[2])
      assert.are.same({ 2, "script_error", "script_error" }, { second.id, second.outcome, second.error.code })
      assert.matches("^prompt: .*person_json%.lua:7: Expected value.*\nstack traceback:\n", second.error.message)
      assert.are.equal(0, second.metrics.attempts)
      assert.are.equal(1, code)
    end)

    it("is 2 for bad options, with a one-line message", function()
      local cases = {
        { { "batch" }, "coax batch: a RECIPE is required (try --help)\n" },
        { { "batch", RECIPE, "--bogus" }, "coax batch: unknown option '--bogus' (try --help)\n" },
        { { "batch", RECIPE, "--concurrency", "0" },
          "coax batch: --concurrency wants an integer from 1 to 100000, not '0'\n" },
        { { "batch", RECIPE, "--rpm", "-5" },
          "coax batch: --rpm wants a positive number of requests a minute, not '-5'\n" },
        { { "batch", RECIPE, "--agent-options", "[1]" },
          "coax batch: --agent-options wants a JSON object, as in '{\"delay_ms\": 200}'\n" },
        { { "batch", RECIPE, "--input", tmp .. "/missing.jsonl" },
          "coax batch: cannot open " .. tmp .. "/missing.jsonl: No such file or directory\n" },
        { { "batch", RECIPE, "--agent", "no-such" }, "coax batch: " .. RECIPE .. ": invalid agent name 'no-such'\n" },
      }
      for _, c in ipairs(cases) do
        local out, err, code = H.coax(c[1], "")
        assert.are.same({ "", c[2], 2 }, { out, err, code })
      end
    end)

    it("is 3 when the agent failed for good: it stops, and --resume continues", function()
      local out_path = tmp .. "/agent.out.jsonl"
      local input = {}
      for i = 1, 6 do input[i] = ('{"id": %d, "input": "x", "replies": []}'):format(i) end
      input = table.concat(input, "\n") .. "\n"
      local _, err, code = H.coax({ "batch", RECIPE, "--output", out_path, "--replies-field", "replies",
        "--concurrency", "1", "--max-agent-errors", "2" }, input)
      assert.are.equal(3, code)
      assert.matches("coax batch: stopped: 2 lines in a row ended in agent_error (the last: replay agent: no reply "
        .. "left (0 given)); the rest is unread: rerun with --resume\n", err, 1, true)
      local seen, n = ids_of(H.read(out_path))
      assert.are.same({ 2, 1, 1 }, { n, seen[1], seen[2] })
    end)
  end)
end)
