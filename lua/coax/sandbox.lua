--- Builds the environment recipes, templates, strategies and agents run in
-- (design.md, "Sandboxing scripts"). Trusted: the engine runs this file once,
-- in the full Lua environment, before any other script; nothing else ever sees
-- that environment.
--
-- Scripts get: the safe base functions, string, table, math, utf8, coroutine,
-- os.time/date/difftime, os.clock (the session's own scripts' CPU time), text-only `load`, and `require` limited to
-- "coax", "cjson" and the coax.* scripts of the engine's script folder. They
-- do not get io, os.execute/getenv/remove, dofile, loadfile, debug, package,
-- binary chunks (string.dump, even through a string's methods), the real
-- global table, coax.run and coax.engine (they read any file as a recipe and
-- block the host), or files through remote_dir. When the engine stops a
-- script (its instruction budget or memory cap), pcall, xpcall and
-- coroutine.resume cannot catch it: they pass the error on.
--
-- One Lua state runs every session of an engine, so nothing scripts share
-- may change: the globals, string, table, math, utf8, os, coroutine, the
-- coax module and its tables are read-only (assignment, rawset and
-- setmetatable fail with an error); the engine's metatables (JSON arrays and
-- objects, schemas, the string metatable) show only their name to
-- getmetatable; `require` of cjson or a coax.* script gives the caller its
-- own copy, and the engine's own instances (the runtime, its policies, the
-- agents it picks) are read-only as well, so a recipe cannot change what
-- they do for others; coax.sandbox is not available.
--
-- Budgets: the instruction count never sees work done in C, so C functions
-- whose work an argument sets charge it (table.move's range, the shifting of
-- table.insert, a sort's comparisons) through vm.charge, or skip it
-- (string.rep of nothing); readers of load run outside load's own pcall;
-- __gc finalizers (which Lua runs with hooks off, so nothing stops them)
-- are refused; coroutine.close counts its nesting (vm.close: Lua 5.4.4's
-- own does not, and overflows the C stack); cjson keeps its nesting limits.
--
-- The network: coax.http.request (below, over coax.http_start and
-- coax.http_wait, which engine/session/lend_http.c lends on the engine's
-- transport, and which scripts do not get) and coax.secret, the only way to
-- an API key; scripts never see a key's value. The environment: coax.getenv
-- reads only the variables named in ENV_READABLE (OLLAMA_HOST, where the
-- ollama agent finds its server); any other name is an error.
return function(loader, coax_module, limit_hit, vm)
  local real_pcall, real_xpcall, resume = pcall, xpcall, coroutine.resume
  local select, error, type, tonumber = select, error, type, tonumber
  local charge, tointeger, ult = vm.charge, math.tointeger, math.ult

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
  local http_start, http_wait = coax_module.http_start, coax_module.http_wait
  coax_module.http_start, coax_module.http_wait = nil, nil
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

  -- No files and no nested engines from scripts: their coax module is the
  -- library without coax.run and coax.engine (engine/script/lib.c), which
  -- take a recipe's path and block the host while they run; remote_dir lets
  -- a schema read files.
  local function no_remote(name, f)
    return function(schema, opts, ...)
      if type(opts) == "table" then
        local plain = {} -- what C reads is what was checked
        for k, v in pairs(opts) do plain[k] = v end
        if plain.remote_dir ~= nil or plain.remote_base ~= nil then
          error(name .. ": remote_dir is not available to scripts", 2)
        end
        opts = plain
      end
      -- a resolver runs inside the schema compiler's own protected call,
      -- which turns the engine's stop into a failed schema: passed on here
      local value, err, code = f(schema, opts, ...)
      if value == nil and limit_hit() then
        charge(0) -- the stop's own message
        error(err, 0)
      end
      return value, err, code
    end
  end
  coax_module.schema = no_remote("coax.schema", coax_module.schema)
  coax_module.example = no_remote("coax.example", coax_module.example)

  local function pass_on(ok, ...)
    if not ok and limit_hit() then error((...), 0) end
    return ok, ...
  end

  local function copy(t, names)
    local out = {}
    for _, k in ipairs(names) do out[k] = t[k] end
    return out
  end

  -- ---- C loops an argument sets ----------------------------------------------
  -- v as the integer Lua's C functions read (a number or a numeric string), or nil.
  local function as_integer(v)
    if type(v) == "string" then v = tonumber(v) end
    return type(v) == "number" and tointeger(v) or nil
  end
  -- The steps of a C loop from i to j: 0 when they are not integers (the
  -- function refuses them) or j < i; huge when the count overflows.
  local function steps(i, j)
    i, j = as_integer(i), as_integer(j)
    if not i or not j or j < i then return 0 end
    local n = j - i + 1
    return n > 0 and n or math.huge
  end
  -- #t once, as the table functions read it.
  local function length(t)
    local n = as_integer(#t)
    if not n then error("object length is not an integer", 3) end
    return n
  end

  local real_rep = string.rep
  local function rep(s, n, sep)
    -- "" repeated 2^50 times is a loop of 2^50 empty copies in C, which no
    -- allocation bounds; anything longer is bounded by the memory cap
    if s == "" and (sep == nil or sep == "") and as_integer(n) then
      charge(as_integer(n))
      return ""
    end
    -- A result past Lua's string size (2^31 - 1 bytes) is a memory bound,
    -- not a script's mistake: ask for the largest string Lua makes, which
    -- the memory cap refuses, so the script ends as a limit.
    local count = as_integer(n)
    if type(s) == "string" and count and count > 0 and (sep == nil or type(sep) == "string")
        and (#s + #(sep or "")) * (count + 0.0) > 0x7fffffff then -- in floats: 3 * 2^62 wraps in integers
      real_rep("x", 0x7fffffff)
    end
    -- Its copying, charged once made (the memory cap refuses a string too big first), an
    -- instruction per 8 bytes as the pattern functions charge theirs (lib_pattern.c's
    -- COPY_BYTES): 200 KB made a million times ran 43 times as long as `while true do end`.
    local r = real_rep(s, n, sep)
    charge(#r / 8)
    return r
  end

  local real_move, real_concat, real_unpack = table.move, table.concat, table.unpack
  local real_insert, real_remove, real_sort = table.insert, table.remove, table.sort
  local function move(a1, f, e, t, a2)
    charge(steps(f, e))
    return real_move(a1, f, e, t, a2)
  end
  local function concat(t, sep, i, j)
    if i == nil then i = 1 end
    if j == nil and type(t) == "table" then j = length(t) end
    charge(steps(i, j))
    return real_concat(t, sep, i, j)
  end
  local function unpack(t, i, j)
    if i == nil then i = 1 end
    if j == nil and type(t) == "table" then j = length(t) end
    charge(steps(i, j))
    return real_unpack(t, i, j)
  end
  -- Lua's insert and remove read #t themselves (a __len may answer
  -- differently the second time): these read it once and shift with move.
  local function insert(t, ...)
    if type(t) ~= "table" or select("#", ...) ~= 2 then return real_insert(t, ...) end -- no loop
    local e = length(t) + 1
    local pos, v = ...
    local p = as_integer(pos)
    if not p then return real_insert({}, pos, v) end -- Lua's error for the position
    if not ult(p - 1, e) then error("bad argument #2 to 'insert' (position out of bounds)", 2) end
    if p < e then move(t, p, e - 1, p + 1) end
    t[p] = v
  end
  local function remove(t, ...)
    if type(t) ~= "table" then return real_remove(t, ...) end
    local size = length(t)
    local pos = ...
    if pos == nil then pos = size
    else
      local p = as_integer(pos)
      if not p then return real_remove({}, pos) end -- Lua's error for the position
      pos = p
    end
    if pos ~= size and ult(size, pos - 1) then error("bad argument #2 to 'remove' (position out of bounds)", 2) end
    local v = t[pos]
    if pos < size then
      move(t, pos + 1, size, pos)
      pos = size
    end
    t[pos] = nil
    return v
  end
  -- A sort compares about n log2 n times; a table with metamethods is
  -- sorted as a plain copy, so the length sort reads is the one charged.
  local function sort(t, comp)
    if type(t) ~= "table" then return real_sort(t, comp) end
    local n = length(t)
    if n > 1 then charge(n * math.log(n, 2)) end
    if getmetatable(t) == nil then return real_sort(t, comp) end
    local a = {}
    for i = 1, n do a[i] = t[i] end
    real_sort(a, comp)
    for i = 1, n do t[i] = a[i] end
  end

  -- coax.tokens_chat estimates every message's text in one C call, where
  -- no instruction is counted, and a list may hold one long message many
  -- times (one 1 MiB message 2,000 times: 2 GB of text, 6 s; 1,000,000
  -- times a 32 MiB one would take days): the texts are charged, an
  -- instruction per 64 bytes (about the 250 ns of C an instruction stands
  -- for), on a plain copy, so the texts charged are the texts read.
  local real_tokens_chat = coax_module.tokens_chat
  coax_module.tokens_chat = function(messages, encoding)
    if type(messages) ~= "table" then return real_tokens_chat(messages, encoding) end
    local plain, bytes = {}, 0
    for i = 1, length(messages) do
      local m = messages[i]
      if type(m) == "table" then
        local role, content, name = m.role, m.content, m.name
        m = { role = role, content = content, name = name }
        for _, v in next, m do
          if type(v) == "string" then bytes = bytes + #v end
        end
      end
      plain[i] = m
      charge(1)
    end
    charge(bytes / 64)
    local ok, n = real_pcall(real_tokens_chat, plain, encoding) -- its errors name the caller's line
    if ok then return n end
    if limit_hit() then error(n, 0) end
    error(n, 2)
  end

  -- Lua's pattern functions run in C, where the instruction count never
  -- looks (("a"):rep(2000):find(".-.-.-b") would run for hours): these
  -- behave the same (engine/script/lib_pattern.c) and hand their steps to
  -- charge, an instruction a step, so matching is charged to the script's
  -- budget and stops with it about as soon as a loop in Lua would.
  local patterns = coax_module.patterns(charge)
  coax_module.patterns = nil
  local function string_functions()
    local t = copy(string, { "byte", "char", "format", "len", "lower", "reverse", "sub", "upper", "pack",
      "packsize", "unpack" })
    t.find, t.match, t.gmatch, t.gsub = patterns.find, patterns.match, patterns.gmatch, patterns.gsub
    t.rep = rep
    return t
  end

  local env = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, rawequal = rawequal,
    rawget = rawget, rawlen = rawlen, rawset = rawset, select = select, setmetatable = setmetatable,
    getmetatable = getmetatable, tonumber = tonumber, tostring = tostring, type = type,
    _VERSION = _VERSION,
    string = string_functions(),
    table = { concat = concat, insert = insert, move = move, pack = table.pack, remove = remove, sort = sort,
      unpack = unpack },
    math = copy(math, { "abs", "ceil", "cos", "deg", "exp", "floor", "fmod", "huge", "log", "max",
      "maxinteger", "min", "mininteger", "modf", "pi", "rad", "random", "sin", "sqrt", "tan",
      "tointeger", "type", "ult" }),
    utf8 = copy(utf8, { "char", "charpattern", "codepoint", "codes", "len", "offset" }),
    os = copy(os, { "date", "difftime", "time" }),
  }
  -- os.clock: the CPU time this session's scripts have spent, not the process's (which tells a
  -- session how much time the other sessions of its engine use)
  env.os.clock = vm.clock
  env.coroutine = copy(coroutine, { "close", "create", "isyieldable", "running", "status", "wrap", "yield" })
  env.coroutine.resume = function(co, ...) return pass_on(resume(co, ...)) end
  local close = vm.close
  env.coroutine.close = function(co) return pass_on(close(co)) end
  env.setmetatable = function(t, mt)
    if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      error("setmetatable: __gc finalizers are not available to scripts", 2)
    end
    local ok, r = real_pcall(setmetatable, t, mt) -- runs no Lua: its errors are the caller's
    if not ok then error(r, 2) end
    return r
  end
  env.pcall = function(f, ...) return pass_on(real_pcall(f, ...)) end
  env.xpcall = function(f, handler, ...) -- a stop keeps its message, whatever the handler does
    return pass_on(real_xpcall(f, function(m) if limit_hit() then return m end return handler(m) end, ...))
  end
  env.collectgarbage = function(opt)
    if opt == nil or opt == "count" then return collectgarbage("count") end
    error("collectgarbage: only 'count' is available to scripts", 2)
  end
  env.print = function() end -- scripts log through on_event, not stdout
  -- A reader runs here, not inside load's own protected call, which would
  -- swallow the engine's stop.
  local function read_all(reader)
    local parts = {}
    while true do
      local piece = reader()
      if piece == nil or piece == "" then return real_concat(parts) end
      if type(piece) ~= "string" then error("reader function must return a string", 0) end
      parts[#parts + 1] = piece
    end
  end
  env.load = function(chunk, name, mode, chunk_env)
    if mode ~= nil and mode ~= "t" then return nil, "load: only text chunks are allowed" end
    if type(chunk) == "function" then
      local ok, text = pass_on(real_pcall(read_all, chunk))
      if not ok then return nil, text end
      chunk, name = text, name or "=(load)"
    end
    local f, err = load(chunk, name, "t", chunk_env or setmetatable({}, { __index = env })) -- its own globals
    if not f and limit_hit() then
      charge(0) -- the stop's own message
      error(err, 0)
    end
    return f, err
  end
  env._G = env

  -- ---- read-only shared tables ---------------------------------------------
  -- freeze(t) moves t's fields to a hidden table and leaves t empty, reading
  -- through __index: assignment, rawset and setmetatable fail; reads, pairs,
  -- ipairs, #, rawget, rawlen and next see the fields.
  local READ_ONLY = "attempt to change a read-only table (every script shares it)"
  local fields_of = setmetatable({}, { __mode = "k" })
  local function refuse() error(READ_ONLY, 2) end
  -- pairs hands its caller the iterator's state: the frozen table itself,
  -- never the hidden one (which a script could then write to for everyone)
  local function frozen_next(t, k) return next(fields_of[t] or t, k) end
  local function frozen_pairs(t) return frozen_next, t, nil end
  local function freeze(t)
    local fields = {}
    for k, v in next, t do fields[k] = v end
    for k in next, fields do t[k] = nil end
    fields_of[t] = fields
    return setmetatable(t, { __index = fields, __newindex = refuse, __len = function() return #fields end,
      __pairs = frozen_pairs, __metatable = "read-only" })
  end
  -- t and the plain tables (no metatable) under it. 'module': t is one of
  -- the engine's shared script instances, whose tables must all be plain: a
  -- table with a metatable of its own (a JSON-marked one) cannot be frozen,
  -- and would stay writable for every session through what the module
  -- hands out; such data is made afresh by a function instead.
  local function freeze_all(t, seen, module)
    seen = seen or {}
    if seen[t] then return end
    seen[t] = true
    for k, v in next, t do
      if type(v) == "table" then
        if getmetatable(v) == nil then freeze_all(v, seen, module)
        elseif module then error(("coax: %s holds a table with a metatable at %s: it cannot be shared"):format(
          module, tostring(k))) end
      end
    end
    freeze(t)
  end
  env.rawset = function(t, k, v)
    if fields_of[t] then error("rawset: " .. READ_ONLY, 2) end
    return rawset(t, k, v)
  end
  env.rawget = function(t, k) return rawget(fields_of[t] or t, k) end
  env.rawlen = function(t) return rawlen(fields_of[t] or t) end
  env.next = function(t, k) return next(fields_of[t] or t, k) end
  -- The engine's metatables (JSON arrays, objects and numbers, schemas:
  -- luaL_newmetatable names them "coax....") show their name, not the table.
  env.getmetatable = function(v)
    local mt = getmetatable(v)
    if type(mt) == "table" then
      local name = rawget(mt, "__name")
      if type(name) == "string" and name:sub(1, 5) == "coax." then return name end
    end
    return mt
  end

  -- Strings' methods: the safe string functions, not the real library
  -- (string.dump), in a table no script can reach; the metatable is locked.
  local string_mt = getmetatable("")
  string_mt.__index = string_functions()
  string_mt.__metatable = "string"

  -- ---- require ----------------------------------------------------------------
  local cjson = require("cjson")
  local trusted_env = {}
  -- A script's own cjson: its settings are its own, but not nesting past
  -- cjson's default, where its recursion in C would outgrow the C stack.
  local CJSON_MAX_DEPTH = 1000
  local function own_cjson()
    local c = cjson.new()
    for _, name in ipairs({ "encode_max_depth", "decode_max_depth" }) do
      local set = c[name]
      c[name] = function(depth, ...)
        local d = as_integer(depth)
        if d and d > CJSON_MAX_DEPTH then
          error("cjson." .. name .. ": at most " .. CJSON_MAX_DEPTH .. " for scripts", 2)
        end
        return set(depth, ...)
      end
    end
    return c
  end
  local loaded = { coax = coax_module, cjson = cjson } -- the engine's scripts' instances

  local function available(name)
    if name:sub(1, 5) ~= "coax." or name == "coax.sandbox" then return false end
    for part in (name:sub(6) .. "."):gmatch("(.-)%.") do
      if not part:match("^[%w_]+$") then return false end
    end
    return true
  end

  local function load_module(name)
    if not available(name) then error("require: module '" .. name .. "' is not available to scripts", 3) end
    local chunk, err = loader(name, trusted_env)
    if not chunk then error(err, 3) end
    local m = chunk(name)
    if m == nil then m = true end
    return m
  end

  -- The engine's own scripts (the runtime, its policies, the agents it picks
  -- by name): one instance of each, which scripts never see.
  local function trusted_require(name)
    if type(name) ~= "string" then error("require: module name must be a string", 2) end
    local m = loaded[name]
    if m == nil then
      m = load_module(name)
      -- read-only too: a script may reach into them through what they hand
      -- out (feedback's templates behind a recipe's feedback table)
      if type(m) == "table" and getmetatable(m) == nil then freeze_all(m, nil, name) end
      loaded[name] = m
    end
    return m
  end

  -- Recipes, templates, strategies and their agents: the shared coax module
  -- (read-only), and their own copy of cjson or of a coax.* script.
  env.require = function(name)
    if type(name) ~= "string" then error("require: module name must be a string", 2) end
    if name == "coax" then return coax_module end
    if name == "cjson" then return own_cjson() end
    local m = load_module(name) -- not a tail call: errors name the requiring line
    return m
  end

  for k, v in next, env do trusted_env[k] = v end
  trusted_env.require = trusted_require
  trusted_env._G = trusted_env
  freeze_all(coax_module)
  freeze_all(env)
  freeze_all(trusted_env)
  return env
end
