std = "lua54"
max_line_length = 120
files["spec/"] = { std = "+busted" }
exclude_files = { "bench/**/node_modules/**", "spec/json-schema-test-suite/**" }
-- Neovim runs the driver, with its vim global (spec/apps_spec.lua)
files["spec/hosts/nvim_driver.lua"] = { std = "+busted", read_globals = { "vim" } }
files["examples/nvim/"] = { read_globals = { "vim" } }
files["examples/love/"] = { globals = { "love" } } -- a game defines love.load, love.update, ...
