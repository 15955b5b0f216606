-- The recipe the game runs (in the engine's own Lua 5.4, whatever LÖVE's
-- LuaJIT is): an NPC card from a description.
return {
  schema = {
    type = "object",
    required = { "name", "mood", "inventory" },
    additionalProperties = false,
    properties = {
      name = { type = "string", minLength = 1 },
      mood = { enum = { "friendly", "grumpy", "afraid", "curious" } },
      inventory = {
        type = "array", maxItems = 6,
        items = { type = "object", required = { "item", "count" }, additionalProperties = false,
                  properties = { item = { type = "string" }, count = { type = "integer", minimum = 1 } } },
      },
    },
  },
  prompt = "Invent the non-player character described below for a fantasy game, as JSON.\n\n{{input}}",
}
