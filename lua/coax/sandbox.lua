--- Builds the environment recipes, templates, strategies and agents run in
-- (design.md, "Sandboxing scripts"). Trusted: the engine runs this file once,
-- in the full Lua environment, before any other script; nothing else ever sees
-- that environment.
--
-- Scripts get: the safe base functions, string, table, math, utf8, coroutine,
-- os.time/clock/date/difftime, text-only `load`, and `require` limited to
-- "coax", "cjson" and the coax.* scripts of the engine's script folder. They
-- do not get io, os.execute/getenv/remove, dofile, loadfile, debug, package,
-- binary chunks or the real global table. When the engine stops a script (its
-- instruction budget or memory cap), pcall, xpcall and coroutine.resume
-- cannot catch it: they pass the error on.
--
-- The network: coax.http.request (below, on the engine's transport in
-- engine/http.c) and coax.secret, the only way to an API key; scripts never
-- see a key's value. The environment: coax.getenv reads only the variables
-- named in ENV_READABLE (OLLAMA_HOST, where the ollama agent finds its
-- server); any other name is an error.
return function(loader, coax_module, limit_hit, http)
  local real_pcall, real_xpcall, resume = pcall, xpcall, coroutine.resume
  local select, error, type = select, error, type

  --- Makes an HTTP request and waits for it (the agent's coroutine yields;
  -- other sessions go on). Only an agent's call can use it.
  -- @tparam table opts {method?, url, headers?, body?, timeout_ms?, on_line?}:
  --   headers a map (sent sorted by name) or a list of {name, value}; a value
  --   may hold a secret ("Bearer " .. coax.secret "OPENAI_API_KEY");
  --   on_line(line) gets a streamed body line by line, as it arrives.
  -- @treturn[1] table {status, headers (names lower-cased), body, elapsed_ms}
  -- @treturn[2] nil
  -- @treturn[2] string what went wrong
  -- @treturn[2] string its kind: "timeout", "connect", "connection", "tls", "url"
  local http_start, http_wait = http.start, http.wait
  local function request(opts)
    if type(opts) ~= "table" then error("coax.http.request: wants a table of options", 2) end
    local on_line = opts.on_line
    if on_line ~= nil and type(on_line) ~= "function" then error("coax.http.request: on_line must be a function", 2) end
    http_start(opts)
    while true do
      local kind, a, b, c = http_wait()
      if kind == "lines" then
        for i = 1, #a do on_line(a[i]) end
      else
        return a, b, c
      end
    end
  end
  coax_module.http = { request = request }
  coax_module.secret = http.secret

  local ENV_READABLE = { OLLAMA_HOST = true }
  local getenv = os.getenv
  --- The value of an environment variable scripts may read, or nil.
  -- @tparam string name one of ENV_READABLE
  coax_module.getenv = function(name)
    if not ENV_READABLE[name] then
      error("coax.getenv: '" .. tostring(name) .. "' is not readable by scripts (only OLLAMA_HOST)", 2)
    end
    return getenv(name)
  end

  local function pass_on(ok, ...)
    if not ok and limit_hit() then error((...), 0) end
    return ok, ...
  end

  local function copy(t, names)
    local out = {}
    for _, k in ipairs(names) do out[k] = t[k] end
    return out
  end

  local env = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, rawequal = rawequal,
    rawget = rawget, rawlen = rawlen, rawset = rawset, select = select, setmetatable = setmetatable,
    getmetatable = getmetatable, tonumber = tonumber, tostring = tostring, type = type,
    _VERSION = _VERSION,
    string = copy(string, { "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match",
      "rep", "reverse", "sub", "upper", "pack", "packsize", "unpack" }),
    table = copy(table, { "concat", "insert", "move", "pack", "remove", "sort", "unpack" }),
    math = copy(math, { "abs", "ceil", "cos", "deg", "exp", "floor", "fmod", "huge", "log", "max",
      "maxinteger", "min", "mininteger", "modf", "pi", "rad", "random", "sin", "sqrt", "tan",
      "tointeger", "type", "ult" }),
    utf8 = copy(utf8, { "char", "charpattern", "codepoint", "codes", "len", "offset" }),
    os = copy(os, { "clock", "date", "difftime", "time" }),
  }
  env.coroutine = copy(coroutine, { "close", "create", "isyieldable", "running", "status", "wrap", "yield" })
  env.coroutine.resume = function(co, ...) return pass_on(resume(co, ...)) end
  local close = coroutine.close
  env.coroutine.close = function(co) return pass_on(close(co)) end
  env.pcall = function(f, ...) return pass_on(real_pcall(f, ...)) end
  env.xpcall = function(f, handler, ...) -- a stop keeps its message, whatever the handler does
    return pass_on(real_xpcall(f, function(m) if limit_hit() then return m end return handler(m) end, ...))
  end
  env.collectgarbage = function(opt)
    if opt == nil or opt == "count" then return collectgarbage("count") end
    error("collectgarbage: only 'count' is available to scripts", 2)
  end
  env.print = function() end -- scripts log through on_event, not stdout
  env.load = function(chunk, name, mode, chunk_env)
    if mode ~= nil and mode ~= "t" then return nil, "load: only text chunks are allowed" end
    return load(chunk, name, "t", chunk_env or env)
  end
  env._G = env

  local loaded = { coax = coax_module, cjson = require("cjson") }
  env.require = function(name)
    if type(name) ~= "string" then error("require: module name must be a string", 2) end
    local m = loaded[name]
    if m ~= nil then return m end
    if not name:match("^coax%.[%w_%.]+$") then
      error("require: module '" .. name .. "' is not available to scripts", 2)
    end
    local chunk, err = loader(name, env)
    if not chunk then error(err, 2) end
    m = chunk(name)
    if m == nil then m = true end
    loaded[name] = m
    return m
  end

  -- Scripts share the string metatable; lock it so they cannot change it.
  getmetatable("").__metatable = "string"
  return env
end
