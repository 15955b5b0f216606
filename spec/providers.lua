--- What the specs of the HTTP agents share (openai, anthropic, gemini,
-- ollama, the Responses API, fidelity, tools): the person the recipes
-- extract and the reply that fills it; a harness that starts the mock
-- server (spec/mock) and writes a folder of recipes for one spec file, and
-- runs one extraction through an agent against a scenario, its report
-- checked against the report schema; and messages and requests as the wire
-- has them.
--
--   local P = require "providers"
--   local provider = P.harness { agent = "openai", options = { model = "m1" }, secrets = { OPENAI_API_KEY = KEY } }
--   local run_on, run = provider:runners()
--   setup(function() provider:start { ["schema.json"] = P.SCHEMA, ["recipe.lua"] = P.recipe() } end)
--   teardown(function() provider:stop() end)
--   local r, log, sc = run({ { reply = P.GOOD } })
local H = require "helper"
local coax = require "coax"
local mock = require "mock.client"
local report_check = require "report_check"
local assert = require "luassert"

local P = {}

P.SCHEMA = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
  .. '"required":["name","age"],"additionalProperties":false}'
P.GOOD = '{"name":"Ada","age":36}'
P.INPUT = "Ada is 36."
P.PROMPT = "Extract the person from: Ada is 36."
-- The error of a reply the provider cut off at its token limit.
P.CUT = "the provider cut the reply off at its token limit (finish: length): the value may be incomplete"

--- The text of a recipe that extracts the person from its input with the
-- schema in `schema_file` (default schema.json); `fields`, Lua text, adds
-- fields (', system = "..."').
function P.recipe(schema_file, fields)
  return ('return { schema = "%s", prompt = "Extract the person from: {{input}}"%s }')
    :format(schema_file or "schema.json", fields or "")
end

--- `prompt` as the first message shows it when the schema is not in the
-- request: the schema compact, as coax writes it (indentation costs tokens).
function P.with_schema(prompt, schema)
  return prompt .. "\n\nReply with JSON that matches this JSON Schema:\n"
    .. coax.json.encode(coax.json.decode(schema or P.SCHEMA))
end

function P.user(content) return { role = "user", content = content } end
function P.assistant(content) return { role = "assistant", content = content } end

--- A report's messages as plain tables, to compare with the wire's.
function P.plain(messages)
  local out = {}
  for i, m in ipairs(messages) do out[i] = { role = m.role, content = m.content } end
  return out
end

--- The lines of a text (stderr), without their newlines.
function P.lines(text)
  local lines = {}
  for line in text:gmatch("[^\n]+") do lines[#lines + 1] = line end
  return lines
end

--- Asserts what every request of an agent has on the wire: a POST to
-- `want.path` with a JSON body, content-type application/json, accept
-- `want.accept`, each of `want.headers` (false: absent), and, with
-- `want.length`, a content-length that is the body's.
function P.check_request(req, want)
  assert.are.equal("POST", req.method)
  assert.are.equal(want.path, req.path)
  for name, value in pairs(want.headers or {}) do
    if value == false then
      assert.is_nil(req.headers[name], name)
    else
      assert.are.equal(value, req.headers[name], name)
    end
  end
  assert.are.equal("application/json", req.headers["content-type"])
  assert.are.equal(want.accept, req.headers.accept)
  if want.length then assert.are.equal(#req.body, tonumber(req.headers["content-length"])) end
  assert.is_table(req.json, "the request body is not JSON: " .. req.body)
end

--- Asserts the request lines `coax run --verbose` wrote (lines 1, 3, 5 ...
-- of `lines`): request i posted to `url` the bytes of log[i]'s body.
function P.check_posts(lines, url, log)
  local pattern = url:gsub("%p", "%%%0")
  for i = 1, #log do
    local line = lines[2 * i - 1]
    local n = assert(line:match("^coax run: http #" .. i .. " > POST " .. pattern .. " %((%d+) bytes%)$"), line)
    assert.are.equal(#log[i].body, tonumber(n))
  end
end

--- The address of scenario `sc` an agent takes as its base_url: Ollama's
-- is the host, the others' the versioned API root.
function P.base_of(agent, sc)
  if agent == "ollama" then return sc.host end
  return sc.base_url
end

local Harness = {}
Harness.__index = Harness

--- A harness for the specs of one agent, with a new folder for its files.
-- `spec.agent` is the agent's name, `spec.options` its options for every
-- run (model, mode, api...), on top of fast retries and a timeout of 2 s;
-- `spec.secrets` the secrets given.
function P.harness(spec)
  local options = { retry_base_ms = 5, timeout_ms = 2000 }
  for k, v in pairs(spec.options or {}) do options[k] = v end
  return setmetatable({ agent = spec.agent, options = options, secrets = spec.secrets, dir = H.tmpdir() }, Harness)
end

--- Starts the mock server and writes `files` ({name = text}) into the
-- folder (run in setup()).
function Harness:start(files)
  self.server = mock.start()
  for name, text in pairs(files) do H.write(self:path(name), text) end
end

--- Stops the server and removes the folder (run in teardown()).
function Harness:stop()
  if self.server then self.server:stop() end
  H.rmtree(self.dir)
end

--- The path of file `name` of the folder.
function Harness:path(name)
  return self.dir .. "/" .. name
end

--- A new scenario of `steps` on the mock server.
function Harness:scenario(steps)
  return self.server:scenario(steps)
end

--- One extraction of the input against scenario `sc`: the agent (opts.agent
-- or the harness's) with the harness's options and the scenario's address,
-- `agent_options` over them; `opts` over coax.run's options. `recipe` is a
-- file of the folder or a path (default: recipe.lua of the folder).
-- @treturn table the report, valid against the report schema
-- @treturn table the requests the server received
function Harness:run_on(sc, agent_options, opts, recipe)
  local agent = (opts and opts.agent) or self.agent
  local ao = { base_url = P.base_of(agent, sc) }
  for k, v in pairs(self.options) do ao[k] = v end
  for k, v in pairs(agent_options or {}) do ao[k] = v end
  local o = { agent = agent, agent_options = ao, secrets = self.secrets }
  for k, v in pairs(opts or {}) do o[k] = v end
  recipe = recipe or "recipe.lua"
  if not recipe:find("/", 1, true) then recipe = self:path(recipe) end
  local report = report_check.valid(coax.run(recipe, P.INPUT, o))
  return report, sc:log()
end

--- A new scenario of `steps`, and run_on it: the report, the requests and
-- the scenario.
function Harness:run(steps, agent_options, opts, recipe)
  local sc = self:scenario(steps)
  local report, log = self:run_on(sc, agent_options, opts, recipe)
  return report, log, sc
end

--- run_on and run as functions of their own, for a spec's locals.
function Harness:runners()
  return function(...) return self:run_on(...) end, function(...) return self:run(...) end
end

return P
