-- luacheck over every Lua file of the project (.luacheckrc says how), so a
-- warning is a failing test here, not a count that drifts up again.
describe("luacheck", function()
  it("finds nothing in spec/, lua/ and examples/", function()
    local p = assert(io.popen("luacheck --no-color --formatter plain spec lua examples 2>&1; echo \"exit $?\""))
    local out = p:read("a")
    p:close()
    assert.are.equal("exit 0\n", out)
  end)
end)
