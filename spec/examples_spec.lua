-- The C programs in examples/ are built by `make test` against the public
-- header only; here they run and must print what the README says.
local H = require "helper"

local function run(name)
  local out = os.tmpname()
  local wrap = os.getenv("COAX_WRAP") or ""
  local ok = os.execute("env -u LD_PRELOAD " .. wrap .. " " .. H.quote(H.build .. "/examples/" .. name)
    .. " > " .. H.quote(out) .. " 2>&1")
  local text = H.read(out)
  os.remove(out)
  return ok, text
end

describe("examples/", function()
  it("blocking.c: the minimal blocking extraction coerces and prints the value", function()
    local ok, out = run("blocking")
    assert.is_true(ok, out)
    assert.are.equal('{"total":1250}\n', out)
  end)
end)

describe("examples/ (frame loop)", function()
  it("frame_loop.c: partials frame by frame from a host that streams, stop_early, the retry, each poll in budget",
    function()
      local ok, out = run("frame_loop")
      assert.is_true(ok, out)
      local function partial(frame, attempt, value, complete, in_progress)
        return ('frame %d: {"value":%s,"complete":[%s],"in_progress":%s,"attempt":%d}'):format(frame, value, complete,
          in_progress and ('"' .. in_progress .. '"') or "null", attempt)
      end
      assert.are.equal(table.concat({
        "frame 1: the model is asked (request 1)",
        partial(5, 1, "{}", "", "/hp"),
        partial(6, 1, '{"hp":"lots"}', "", "/hp"),
        -- "lots" closed at byte 13: the partial built at the next poll finds the reply doomed
        "frame 7: coax stopped the reply after 18 bytes (it cannot validate); the host cancels its request",
        "frame 7: the model is asked (request 2)",
        partial(11, 2, "{}", "", "/name"),
        partial(12, 2, '{"name":"Gr"}', "", "/name"),
        partial(13, 2, '{"name":"Grue"}', '"/name"', "/"),
        partial(14, 2, '{"name":"Grue"}', '"/name"', "/hp"),
        partial(15, 2, '{"name":"Grue","hp":40}', '""', nil),
        'frame 15: the host answers {"name": "Grue", "hp": 40}',
        'ran 16 frames, 7 partials, at most one a frame: ok {"name":"Grue","hp":40}',
        -- the poll's time is this machine's, loaded or not (a helper's build
        -- beside it made it "no"): measured, printed, never asserted here
        "every poll took less than half a frame: " .. (out:match("half a frame: (%a+)\n$") or "?"),
      }, "\n") .. "\n", out)
    end)
end)

describe("make install", function()
  it("installs what a host needs: the example builds and runs against the installed files only", function()
    if os.getenv("COAX_WRAP") and os.getenv("COAX_WRAP") ~= "" then return end -- not under valgrind
    local prefix = os.getenv("PWD") .. "/build/install-spec"
    local log = os.tmpname()
    local ok = os.execute("env -u LD_PRELOAD make --no-print-directory install PREFIX=" .. H.quote(prefix)
      .. " > " .. H.quote(log) .. " 2>&1")
    assert(ok, H.read(log))
    for _, f in ipairs { "bin/coax", "lib/libcoax.a", "lib/libcoax.so", "lib/libcoax.so.0", "lib/libcoax.so.0.1.0",
      "lib/pkgconfig/coax.pc", "include/coax.h", "lib/lua/5.4/coax.so", "share/coax/lua/coax/runtime.lua",
      "share/coax/lua/coax/agents/replay.lua", "share/coax/schemas/contact.schema.json",
      "share/coax/schemas/report.schema.json", "share/coax/lua/recipes/contact.lua",
      "share/coax/lua/recipes/contact.replies.jsonl", "share/coax/lua/recipes/invoice.input.txt" } do
      assert.is_not_nil(io.open(prefix .. "/" .. f), f)
    end
    -- a SONAME, a versioned file and the links to it
    local f = assert(io.popen("readelf -d " .. H.quote(prefix .. "/lib/libcoax.so.0.1.0")))
    assert.matches("Library soname: %[libcoax%.so%.0%]", f:read("a"))
    f:close()
    f = assert(io.popen("readlink " .. H.quote(prefix .. "/lib/libcoax.so") .. " "
      .. H.quote(prefix .. "/lib/libcoax.so.0")))
    assert.are.equal("libcoax.so.0\nlibcoax.so.0.1.0\n", f:read("a"))
    f:close()
    -- the installed command runs the installed example recipe from any folder
    local out = os.tmpname()
    assert(os.execute("cd / && env -u LD_PRELOAD -u COAX_LUA_PATH " .. H.quote(prefix .. "/bin/coax") .. " run "
      .. H.quote(prefix .. "/share/coax/lua/recipes/contact.lua") .. " --input "
      .. H.quote(prefix .. "/share/coax/lua/recipes/contact.input.txt") .. " > " .. H.quote(out) .. " 2>/dev/null"))
    assert.matches('^{"full_name":"Grace Hopper"', H.read(out))
    os.remove(out)
    -- Built from a folder without lua/, with pkg-config, against the installed library.
    local exe = prefix .. "/blocking"
    local cmd = "cd /tmp && env -u LD_PRELOAD PKG_CONFIG_PATH=" .. H.quote(prefix .. "/lib/pkgconfig")
      .. " sh -c 'cc -o " .. exe .. " " .. os.getenv("PWD") .. "/examples/blocking.c $(pkg-config --cflags --libs coax)"
      .. " -Wl,-rpath," .. prefix .. "/lib' > " .. H.quote(log) .. " 2>&1"
    assert(os.execute(cmd), H.read(log))
    out = os.tmpname()
    assert(os.execute("cd /tmp && env -u LD_PRELOAD -u COAX_LUA_PATH " .. H.quote(exe) .. " > " .. H.quote(out)))
    assert.are.equal('{"total":1250}\n', H.read(out))
    -- the program records the SONAME; without rpath LD_LIBRARY_PATH finds it
    f = assert(io.popen("readelf -d " .. H.quote(exe)))
    assert.matches("Shared library: %[libcoax%.so%.0%]", f:read("a"))
    f:close()
    local bare = prefix .. "/blocking-bare"
    assert(os.execute("cd /tmp && env -u LD_PRELOAD PKG_CONFIG_PATH=" .. H.quote(prefix .. "/lib/pkgconfig")
      .. " sh -c 'cc -o " .. bare .. " " .. os.getenv("PWD")
      .. "/examples/blocking.c $(pkg-config --cflags --libs coax)'"
      .. " > " .. H.quote(log) .. " 2>&1"), H.read(log))
    assert(os.execute("cd /tmp && env -u LD_PRELOAD -u COAX_LUA_PATH LD_LIBRARY_PATH=" .. H.quote(prefix .. "/lib")
      .. " " .. H.quote(bare) .. " > " .. H.quote(out)))
    assert.are.equal('{"total":1250}\n', H.read(out))
    assert(os.execute("cd /tmp && env -u LD_PRELOAD LUA_CPATH=" .. H.quote(prefix .. "/lib/lua/5.4/?.so")
      .. " lua5.4 -e 'assert(require(\"coax\").repair(\"{a:1}\").a == 1)'"))
    os.remove(out)
    os.remove(log)
  end)
end)
