local H = require "helper"
local json = require("coax").json

describe("coax repair (command)", function()
  it("prints the repaired value compactly on stdout, exit 0", function()
    local out, err, code = H.coax({ "repair" }, "Sure:\n```json\n{'a': 1, b: [1,2,],}\n```")
    assert.are.equal('{"a":1,"b":[1,2]}\n', out)
    assert.are.equal("", err)
    assert.are.equal(0, code)
  end)

  it("keeps numbers exactly as written", function()
    local out = H.coax({ "repair" }, '{"big": 12345678901234567890, "price": 1.10, "e": 1E+2}')
    assert.are.equal('{"big":12345678901234567890,"price":1.10,"e":1E+2}\n', out)
  end)

  it("pretty-prints with --pretty", function()
    local out = H.coax({ "repair", "--pretty" }, "{a: [1]}")
    assert.are.equal('{\n  "a": [\n    1\n  ]\n}\n', out)
  end)

  it("reads a FILE, or standard input for - and for no argument", function()
    local path = H.tmpfile("[1, 2,]")
    assert.are.equal("[1,2]\n", (H.coax({ "repair", path })))
    assert.are.equal("[1,2]\n", (H.coax({ "repair", "-" }, "[1, 2,]")))
    os.remove(path)
  end)

  it("writes the repair log to stderr as JSON lines with --log", function()
    local out, err, code = H.coax({ "repair", "--log" }, '{"a": 1,}')
    assert.are.equal('{"a":1}\n', out)
    assert.are.equal(0, code)
    local lines = {}
    for line in err:gmatch("[^\n]+") do lines[#lines + 1] = json.decode(line) end
    assert.are.equal(1, #lines)
    assert.are.same({ kind = "trailing_comma", offset = 7, line = 1, column = 8,
      detail = "removed a trailing comma", class = "lossless" }, lines[1])
  end)

  it("exits 1 with a one-line reason when no JSON is recoverable", function()
    local out, err, code = H.coax({ "repair" }, "I am sorry, I cannot do that.")
    assert.are.equal("", out)
    assert.are.equal("coax repair: no JSON value found in 29 bytes of text\n", err)
    assert.are.equal(1, code)
  end)

  it("exits 4 when a limit is reached", function()
    local _, err, code = H.coax({ "repair" }, string.rep("[", 1000000))
    assert.are.equal(4, code)
    assert.are.equal("coax repair: nesting deeper than 512 (line 1, column 513)\n", err)
    _, err, code = H.coax({ "repair", "--max-input", "8" }, "[1, 2, 3, 4]")
    assert.are.equal(4, code)
    assert.are.equal("coax repair: standard input is larger than the limit of 8 bytes (--max-input)\n", err)
    _, _, code = H.coax({ "repair", "--max-depth=2" }, "[[[1]]]")
    assert.are.equal(4, code)
  end)

  it("exits 2 for usage errors and unreadable files", function()
    local _, err, code = H.coax({ "repair", "--bogus" })
    assert.are.equal(2, code)
    assert.are.equal("coax repair: unknown option '--bogus' (try --help)\n", err)
    _, err, code = H.coax({ "repair", "/nonexistent/reply.txt" })
    assert.are.equal(2, code)
    assert.are.equal("coax repair: cannot open /nonexistent/reply.txt: No such file or directory\n", err)
    _, _, code = H.coax({ "repair", "--max-depth", "zero" })
    assert.are.equal(2, code)
    _, _, code = H.coax({ "nonsense" })
    assert.are.equal(2, code)
  end)

  describe("--jsonl", function()
    it("writes one line per input line, in order, and exits 1 when some failed", function()
      local input = table.concat({
        json.encode("{'a': 1}"),
        json.encode("no json here"),
        json.encode('```json\n[1, 2]\n```'),
        "not a JSON string",
        json.encode(string.rep("[", 600)),
      }, "\n") .. "\n"
      local out, err, code = H.coax({ "repair", "--jsonl" }, input)
      assert.are.equal(1, code)
      assert.are.equal("", err)
      assert.are.equal(table.concat({
        '{"value":{"a":1},"repairs":1,"class":"lossless"}',
        '{"error":"no JSON value found in 12 bytes of text"}',
        '{"value":[1,2],"repairs":1,"class":"lossless"}',
        '{"error":"expected a JSON value"}',
        '{"error":"nesting deeper than 512"}',
      }, "\n") .. "\n", out)
    end)

    it("handles input without a final newline and empty input", function()
      assert.are.equal('{"value":1,"repairs":0,"class":"lossless"}\n', (H.coax({ "repair", "--jsonl" }, '"1"')))
      local out, _, code = H.coax({ "repair", "--jsonl" }, "")
      assert.are.equal("", out)
      assert.are.equal(0, code)
    end)
  end)
end)
