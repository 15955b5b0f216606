-- A pattern whose one item is a set of M bytes: every "step" the pattern
-- functions charge (a subject position tried) reads the whole set twice
-- (item_end, set_has), so 1024 steps between two ticks cost 2 x 1024 x M.
return {
  name = "long_set", schema = {type = "object"},
  prompt = function()

    local set = "[" .. string.rep("b", SETLEN or 4000000) .. "]"
    local t = os.clock()
    local r = string.find(string.rep("a", 200000), set)
    return "took " .. (os.clock() - t)
  end,
}
