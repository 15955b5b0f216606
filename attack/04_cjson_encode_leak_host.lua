-- lua5.4 attack/04_cjson_encode_leak_host.lua (from the worktree): one engine,
-- N sessions each running 04_cjson_encode_leak.lua's prompt; prints the
-- process's RSS after each: it should stay flat (each session ends with limit).
package.cpath = "build/?.so;" .. package.cpath
local coax = require "coax"
local recipe = [[
return { schema = { type = 'object' }, prompt = function()
  local out = require('cjson').encode(string.rep('\0', 10000000)) return 'x' end }]]
local function rss()
  for line in io.lines("/proc/self/status") do
    local kb = line:match("^VmRSS:%s+(%d+)")
    if kb then return tonumber(kb) // 1024 end
  end
end
local e = coax.engine()
for i = 1, tonumber(arg[1] or 8) do
  local s = e:session(recipe, "x", { source = true, replies = { "{}" } })
  while e:poll(10) > 0 do end
  print(i, s:report().outcome, rss() .. " MB")
end
