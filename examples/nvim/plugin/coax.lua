-- :CoaxExtract {recipe}: the value the recipe extracts from the current
-- buffer, in a scratch buffer (lua/coax_extract.lua).
vim.api.nvim_create_user_command("CoaxExtract", function(args)
  require("coax_extract").extract(vim.fn.expand(args.args))
end, { nargs = 1, complete = "file", desc = "coax: extract JSON from this buffer with a recipe" })
