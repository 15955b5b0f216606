std = "lua54"
max_line_length = 120
files["spec/"] = { std = "+busted" }
exclude_files = { "bench/**/node_modules/**", "spec/json-schema-test-suite/**" }
