-- Self-referencing and DAG tables handed to C by a recipe: as its schema, as
-- a strategy's messages, as an agent's reply fields. Expected: a clean error
-- or limit, quickly.
local CASE = CASE or 1
local cyc = {} cyc.self = cyc cyc[1] = cyc
local dag = { 1 } for i = 1, 60 do dag = { dag, dag } end
local schemas = { [1] = cyc, [2] = dag, [3] = { type = "object" }, [4] = { type = "object" }, [5] = { type = "object" } }
return {
  name = "cycles", schema = schemas[CASE] or { type = "object" }, prompt = "x", max_attempts = 2,
  strategy = function()
    if CASE == 3 then return { { role = "user", content = cyc } } end
    if CASE == 4 then return { { role = "user", content = "x", extra = dag } } end
    return { { role = "user", content = "x" } }
  end,
  agent = { call = function()
    if CASE == 5 then return { text = "no", usage = dag } end
    if CASE == 6 then return { text = "no", usage = cyc } end
    return { text = "no" }
  end },
}
