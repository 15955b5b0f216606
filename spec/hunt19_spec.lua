-- hunt19: mutations of valid replies a model really writes (keys re-cased,
-- values retyped, members moved, wrapped, cut). One class gave a wrong value:
-- a whole reply's JSON in backticks or single quotes (‘’ too), where JSON needs no
-- escape of its own, was read with its escapes decoded twice; and JSON of prose
-- right inside a string literal's quotes (json.loads('...'), """...""") was read
-- as written, where the literal decodes its escapes first. The values are
-- in spec/fixtures/confidence/hunt19.jsonl; here the error's place and words.
require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local path = '{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}'
local twice = "unreadable text at line %d, column %d (JSON in quotes that need no escape of its own: read as"
  .. " written, or its escapes decoded first (`{\"p\": \"C:\\\\\\\\x\"}`: C:\\\\x or C:\\x?): '%s'); send valid JSON"

describe("hunt19: JSON in quotes read as written or decoded first", function()
  local cases = {
    { "`{\"path\": \"C:\\\\\\\\temp\"}`", 1, 1, "`" },
    { "'{\"path\": \"C:\\\\\\\\temp\"}'", 1, 1, "'" },
    { "\n  `{\"path\": \"a\\\\nb\"}`", 2, 3, "`" },
    { "\u{2018}{\"path\": \"a\\\\nb\"}\u{2019}", 1, 1, "\u{2018}" },
  }
  for _, c in ipairs(cases) do
    it("refuses " .. c[1] .. " at its opening quote", function()
      local r = coax.extract(c[1], path)
      assert.are.same({ false, "", twice:format(c[2], c[3], c[4]) },
        { r.valid, r.errors[1].instanceLocation, r.errors[1].error })
    end)
  end

  it("logs the decoding as invented, a guess the default refuses", function()
    local r = coax.extract("`{\"path\": \"C:\\\\\\\\temp\"}`", path, { max_class = "invented" })
    local classes = {}
    for _, e in ipairs(r.log) do classes[#classes + 1] = e.kind .. ":" .. e.class end
    assert.are.same({ true, "C:\\temp" }, { r.valid, r.value.path })
    assert.are.same({ "double_encoded:invented", "backtick_quotes:lossless" }, classes)
  end)

  it("keeps one reading where both decode alike or nothing is escaped", function()
    for text, want in pairs {
      ["`{\"path\": \"a\\/b\"}`"] = "a/b", ["'{\"path\": \"\\u00e9\"}'"] = "é", ["`{\"path\": \"x\"}`"] = "x",
      ["\u{201C}{\"path\": \"C:\\\\\\\\temp\"}\u{201D}"] = "C:\\\\temp",
      ["Use `{\"path\": \"C:\\\\\\\\temp\"}` here."] = "C:\\\\temp",
    } do
      local r = coax.extract(text, path)
      assert.are.same({ true, want }, { r.valid, r.value.path })
    end
  end)

  it("refuses JSON of prose right inside a string literal's quotes, at the JSON", function()
    for text, column in pairs {
      ["json.loads('{\"path\": \"C:\\\\\\\\temp\"}')"] = 13, ['x = """{"path": "C:\\\\\\\\temp"}"""'] = 8,
      ["Answer: \u{2018}{\"path\": \"C:\\\\\\\\temp\"}\u{2019}"] = 10,
    } do
      local r = coax.extract(text, path)
      assert.are.same({ false, twice:format(1, column, "{") }, { r.valid, r.errors[1] and r.errors[1].error })
    end
  end)

  it("reads a raw string, or a literal with no backslash read two ways, as written", function()
    for text, want in pairs {
      ["json.loads(r'{\"path\": \"C:\\\\\\\\temp\"}')"] = "C:\\\\temp",
      ["json.loads('{\"path\": \"C:/temp\"}')"] = "C:/temp",
      ["json.loads('{\"path\": \"\\u00e9\"}')"] = "é",
    } do
      local r = coax.extract(text, path)
      assert.are.same({ true, want }, { r.valid, r.value.path })
    end
  end)
end)
