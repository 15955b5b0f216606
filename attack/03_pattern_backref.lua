-- A back reference to a capture of megabytes: each step compares the capture
-- again (memcmp of its length), N^2/8 bytes over about 1.5 N steps.
return {
  name = "backref", schema = {type = "object"},
  prompt = function()
    local s = string.rep("a", NLEN or 8000000)
    local r = string.find(s, "^(a*)%1b")
    return "x"
  end,
}
