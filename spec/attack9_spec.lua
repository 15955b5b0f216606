--- Attack round 9: what sessions of one engine share, and the host's secrets
-- on their way out, each hole with its input and the twins that must keep
-- working. (The C API's side: spec/c/test_attack9.c.)
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local mock = require "mock.client"

local KEY = "sk-SENTINEL-attack9-plain"

-- The first line of the error of an agent that sends the OpenAI key to
-- `url` (the request fails here either way: a refused port, no such host).
local function send_to(url, agent_options)
  return H.send_secret(url, KEY, { agent_options = agent_options }):match("^[^\n]*")
end

local REFUSED = "coax.http.request: the secret OPENAI_API_KEY does not go to %s over plain http (only to its "
  .. "provider's host, this machine, or a base_url the host gave: --base-url, agent_options)"

describe("attack 9: a secret leaves this machine over TLS only", function()
  -- The provider's host was checked, the scheme was not: a recipe that
  -- wrote http://api.openai.com/ had the host's key sent in clear text
  -- across the network (and through any proxy on the way), where the host
  -- gave no http URL. It is now refused before anything is sent.
  it("not over http to its provider's host, nor to the host's https base_url", function()
    assert.are.equal(REFUSED:format("api.openai.com"), send_to("http://api.openai.com/v1/chat/completions"):match(
      "coax%.http%.request: .*"))
    assert.are.equal(REFUSED:format("api.openai.com"), send_to("http://API.openai.com:443/v1"):match(
      "coax%.http%.request: .*"))
    assert.are.equal(REFUSED:format("gateway.invalid"), send_to("http://gateway.invalid/v1/chat",
      { base_url = "https://gateway.invalid/v1" }):match("coax%.http%.request: .*"))
  end)

  it("twins: over http to this machine and to an http base_url the host gave; over https to both", function()
    for _, c in ipairs({ { "http://127.0.0.1:9/v1" }, { "http://localhost:9/v1" }, { "http://[::1]:9/v1" },
      { "http://gateway.invalid/v1/chat", { base_url = "http://gateway.invalid/v1" } },
      { "https://gateway.invalid/v1/chat", { base_url = "http://gateway.invalid/v1" } },
      { "https://gateway.invalid/v1/chat", { base_url = "https://gateway.invalid/v1" } } }) do
      local msg = send_to(c[1], c[2])
      assert.is_truthy(msg:match("^sent: %a+$"), msg)
    end
  end)
end)

describe("attack 9: this machine is reached directly, whatever proxy is named", function()
  -- A key may go to this machine over plain http; curl sent localhost and
  -- 127.0.0.1 through the host's proxy (or http_proxy) too, so the key
  -- went in clear text to wherever the proxy was. Requests to this machine
  -- now never take a proxy; every other request still does.
  local server
  setup(function() server = mock.start() end)
  teardown(function() server:stop() end)

  local function via(url, proxy)
    return H.send_secret(url, KEY, { proxy = proxy, agent_options = { base_url = "http://gateway.invalid/v1" } })
      :match("^sent: (%w+)")
  end

  it("a request to 127.0.0.1 does not go to a proxy at a closed port", function()
    local sc = server:scenario({ { status = 200, json = { ok = true } } })
    assert.are.equal("200", via(sc.base_url .. "/chat/completions", "http://127.0.0.1:9"))
    local log = sc:log()
    assert.are.same({ 1, "/s/" .. sc.name .. "/v1/chat/completions", "Bearer " .. KEY },
      { #log, log[1].target, log[1].headers.authorization })
  end)

  it("twin: a request elsewhere still goes through the proxy", function()
    local sc = server:scenario({ { status = 200, json = { ok = true } } })
    local url = "http://gateway.invalid/s/" .. sc.name .. "/v1/chat/completions"
    assert.are.equal("200", via(url, server:url()))
    local log = sc:log()
    assert.are.same({ 1, url }, { #log, log[1].target })
  end)
end)
