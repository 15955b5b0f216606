--- Cost round 25's scaling harness: each family builds an input of size n and runs one entry point on
-- it; the CPU time (the least of three runs) is taken at n, 2n, 4n and 8n and the ratios of neighbours
-- printed. A ratio past 2.3 is a lead, confirmed by callgrind's instruction count:
--   COAX_BUILD=build lua5.4 bench/cost/scaling.lua [FILTER]          -- CPU times, every family
--   valgrind --tool=callgrind --callgrind-out-file=/dev/null lua5.4 bench/cost/scaling.lua FAMILY N
--     (one run at size N; the instructions of a run at n subtracted from those at 2n ... give the work)
local build = os.getenv("COAX_BUILD") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;spec/?.lua;" .. package.path
local coax = require "coax"
local json = coax.json

local function rep(s, n, sep) return (s):rep(n, sep) end
local function csv(n, f)
  local t = {}
  for i = 1, n do t[i] = f(i) end
  return table.concat(t, ",")
end
local ANY = assert(coax.schema("{}"))
local OBJ = assert(coax.schema('{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}}}'))
local function repair(text) return function() coax.repair(text) end end
local function extract(text, s) return function() coax.extract(text, s or ANY) end end
local function validate(s, v) return function() s:validate(v) end end

-- family name -> { base n, function(n) returning the run }
local F = {}
F.repair_quotes = { 2000, function(n) return repair('{"a": "' .. rep('x"', n) .. '}') end }
F.repair_lone_quotes = { 2000, function(n) return repair(rep('"', n)) end }
F.repair_single_quotes_line = { 2000, function(n) return repair("[" .. rep("'a'", n, ",") .. "]") end }
F.repair_unclosed_prose = { 2000, function(n) return repair(rep("see [1 and {a ", n) .. '{"a": 1}') end }
F.repair_unclosed_nested = { 100, function(n) return repair(rep(rep("[", 400) .. "1", n, ",")) end }
F.repair_fences = { 1000, function(n) return repair(rep("```json\n{\"a\": 1}\n```\ntext\n", n)) end }
F.repair_fence_lines = { 2000, function(n) return repair(rep("```\n", n) .. '{"a":1}') end }
F.repair_prose_braces = { 2000, function(n) return repair(rep("a { b } c ", n) .. '{"a": 1}') end }
F.repair_spans = { 1000, function(n) return repair(rep('{"a": 1} ', n)) end }
F.repair_numbers_sep = { 2000, function(n) return repair("[" .. rep("1,234,567.5", n, ", ") .. "]") end }
F.repair_deep_siblings = { 50, function(n) return repair(rep(rep("[", 500) .. rep("]", 500), n, ",")) end }
F.repair_huge_key = { 200000, function(n) return repair('{"' .. rep("k", n) .. '": 1}') end }
F.repair_dup_keys = { 4000, function(n) return repair("{" .. rep('"a": 1', n, ", ") .. "}") end }
F.repair_bare_keys = { 4000, function(n)
  return repair("{" .. csv(n, function(i) return "k" .. i .. ": 1" end) .. "}")
end }
F.repair_comments = { 2000, function(n)
  return repair("{" .. csv(n, function(i) return '"k' .. i .. '": 1 // c\n' end) .. "}")
end }
F.repair_labels = { 1000, function(n) return repair(rep("Answer: {\"a\": 1}\n(note: x)\n", n)) end }
F.repair_long_line_errors = { 2000, function(n)
  return repair("{" .. csv(n, function(i) return "k" .. i .. ": 'v'" end) .. "}")
end }
F.repair_trailing_commas = { 2000, function(n) return repair(rep("[1,", n) .. rep("],", n)) end }
F.repair_backticks = { 2000, function(n) return repair(rep("`x` ", n) .. '{"a":1}') end }
F.repair_tags = { 2000, function(n) return repair(rep("<t>x</t> ", n) .. '{"a":1}') end }
F.repair_escapes = { 4000, function(n) return repair('["' .. rep("\\x", n) .. '"]') end }
F.repair_newlines_in_string = { 4000, function(n) return repair('{"a": "' .. rep("x\n", n) .. '"}') end }
F.repair_ellipsis = { 2000, function(n) return repair("[" .. rep("1, ...", n, ", ") .. "]") end }
F.repair_python = { 2000, function(n) return repair("[" .. rep("None, True, False", n, ", ") .. "]") end }
F.repair_concat = { 2000, function(n) return repair('["' .. rep('a" + "b', n) .. '"]') end }
F.repair_open_strings = { 2000, function(n) return repair("{" .. rep('"a": "x, ', n)) end }
F.repair_colons = { 2000, function(n) return repair("{" .. rep('"a": : 1, ', n) .. "}") end }

F.extract_near_keys = { 500, function(n)
  local props = csv(n, function(i) return ('"field_%d":{"type":"integer"}'):format(i) end)
  local s = assert(coax.schema('{"type":"object","properties":{' .. props .. '}}'))
  return extract("{" .. csv(n, function(i) return ('"Field %d": "%d"'):format(i, i) end) .. "}", s)
end }
F.extract_misspelt_keys = { 500, function(n)
  local props = csv(n, function(i) return ('"name_%05d":{"type":"string"}'):format(i) end)
  local s = assert(coax.schema('{"type":"object","properties":{' .. props .. '},"additionalProperties":false}'))
  return extract("{" .. csv(n, function(i) return ('"nmae_%05d": "x"'):format(i) end) .. "}", s)
end }
F.extract_dup_keys = { 2000, function(n) return extract("{" .. rep('"name": "x"', n, ", ") .. "}", OBJ) end }
F.extract_coerce_numbers = { 2000, function(n)
  local s = assert(coax.schema('{"type":"array","items":{"type":"integer"}}'))
  return extract("[" .. rep('"1,234"', n, ", ") .. "]", s)
end }
F.extract_many_errors = { 2000, function(n)
  local s = assert(coax.schema('{"type":"array","items":{"type":"integer"}}'))
  return extract("[" .. rep('"x"', n, ", ") .. "]", s)
end }
F.extract_spans = { 500, function(n) return extract(rep('Draft: {"name": "a", "age": 1}\n', n), OBJ) end }
F.extract_prose_lines = { 2000, function(n)
  return extract(rep("Here is a line { of prose }.\n", n) .. '{"name":"a","age":1}', OBJ)
end }
F.extract_labels = { 1000, function(n) return extract(rep('Wrong: {"name":"a"}\nCorrect: {"name":"b"}\n', n), OBJ) end }
F.extract_remarks = { 1000, function(n) return extract('{"name":"a","age":1}' .. rep("\n\n(note)", n), OBJ) end }
F.extract_deep_keys = { 50, function(n)
  local s = assert(coax.schema('{"type":"object","additionalProperties":{"$ref":"#"}}'))
  return extract(rep('{"' .. rep("k", 200) .. '": ', n) .. "{}" .. rep("}", n), s)
end }
F.extract_words_numbers = { 1000, function(n)
  local s = assert(coax.schema('{"type":"array","items":{"type":"integer"}}'))
  return extract("[" .. rep('"twenty one thousand"', n, ", ") .. "]", s)
end }
F.extract_enum_near = { 1000, function(n)
  local values = csv(n, function(i) return '"Value_' .. i .. '"' end)
  local s = assert(coax.schema('{"type":"array","items":{"enum":[' .. values .. ']}}'))
  return extract("[" .. csv(n, function(i) return '"value ' .. i .. '"' end) .. "]", s)
end }

F.validate_unique = { 2000, function(n)
  local s = assert(coax.schema('{"uniqueItems":true}'))
  return validate(s, json.decode("[" .. csv(n, function(i) return '{"a":[[[' .. i .. ']]],"b":1}' end) .. "]"))
end }
F.validate_unique_equalish = { 2000, function(n)
  local s = assert(coax.schema('{"uniqueItems":true}'))
  local items = csv(n, function(i) return "[" .. rep("1", 20, ",") .. "," .. i .. "]" end)
  return validate(s, json.decode("[" .. items .. "]"))
end }
F.validate_unique_floats = { 2000, function(n)
  local s = assert(coax.schema('{"uniqueItems":true}'))
  return validate(s, json.decode("[" .. csv(n, function(i) return i .. ".0," .. i .. "e0" end) .. "]"))
end }
F.validate_anyof_nest = { 100, function(n)
  local sch = '{"type":"integer"}'
  for _ = 1, 8 do sch = '{"anyOf":[' .. sch .. ',{"type":"string","minLength":5}]}' end
  local s = assert(coax.schema('{"items":' .. sch .. '}'))
  return validate(s, json.decode("[" .. rep("1.5", n, ",") .. "]"))
end }
F.validate_ref_chain = { 500, function(n)
  local defs = csv(n, function(i) return ('"d%d":{"$ref":"#/$defs/d%d"}'):format(i, i + 1) end)
  local last = ('"d%d":{"type":"integer"}'):format(n + 1)
  local s = assert(coax.schema('{"$defs":{' .. defs .. "," .. last .. '},"$ref":"#/$defs/d1"}'))
  return validate(s, 5)
end }
F.validate_format_email = { 20000, function(n)
  local s = assert(coax.schema('{"format":"email"}'))
  return validate(s, rep("a.", n) .. "@" .. rep("b.", n) .. "c")
end }
F.validate_format_uri = { 20000, function(n)
  local s = assert(coax.schema('{"format":"uri"}'))
  return validate(s, "http://" .. rep("a.", n) .. "com/" .. rep("%41", n))
end }
F.validate_format_datetime = { 20000, function(n)
  local s = assert(coax.schema('{"format":"date-time"}'))
  return validate(s, "2020-01-01T00:00:00." .. rep("1", n) .. "Z")
end }
F.validate_format_regex = { 2000, function(n)
  local s = assert(coax.schema('{"format":"regex"}'))
  return validate(s, rep("(a|", n) .. rep(")", n))
end }
F.validate_format_ipv6 = { 20000, function(n)
  local s = assert(coax.schema('{"format":"ipv6"}'))
  return validate(s, rep("1:", n))
end }
F.validate_multipleof_exp = { 20000, function(n)
  local s = assert(coax.schema('{"multipleOf":1e-' .. n .. '}'))
  return validate(s, json.decode("1e" .. n))
end }
F.validate_multipleof_digits = { 20000, function(n)
  local s = assert(coax.schema('{"multipleOf":0.' .. rep("3", n) .. '}'))
  return validate(s, json.decode(rep("9", n) .. "." .. rep("9", n)))
end }
F.validate_bounds_digits = { 20000, function(n)
  local s = assert(coax.schema('{"minimum":0.' .. rep("1", n) .. ',"maximum":1e' .. n .. '}'))
  return validate(s, json.decode("0." .. rep("1", n) .. "2"))
end }
F.validate_pattern_choice = { 1000, function(n)
  local s = assert(coax.schema('{"pattern":"^(a|b)*$"}'))
  return validate(s, rep("ab", n))
end }
F.validate_pattern_unanchored = { 500, function(n)
  local s = assert(coax.schema('{"pattern":"(a|b)*(c|d)"}'))
  return validate(s, rep("ab", n))
end }
F.validate_pattern_props = { 100, function(n)
  local pats = csv(n, function(i) return ('"^p%d_":{"type":"integer"}'):format(i) end)
  local s = assert(coax.schema('{"patternProperties":{' .. pats .. '}}'))
  return validate(s, json.decode("{" .. csv(n, function(i) return ('"p%d_x":1'):format(i) end) .. "}"))
end }
F.validate_dynamic_ref = { 2000, function(n)
  local s = assert(coax.schema('{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicAnchor":"n",'
    .. '"type":["array","integer"],"items":{"$dynamicRef":"#n"}}'))
  return validate(s, json.decode(rep("[", 200) .. rep("1", n, ",") .. rep("]", 200)))
end }
F.validate_errors_many = { 4000, function(n)
  local s = assert(coax.schema('{"items":{"type":"string","minLength":3}}'))
  return validate(s, json.decode("[" .. rep("1", n, ",") .. "]"))
end }
F.validate_required_many = { 4000, function(n)
  local s = assert(coax.schema('{"required":[' .. csv(n, function(i) return '"k' .. i .. '"' end) .. ']}'))
  return validate(s, json.decode("{" .. csv(n, function(i) return '"j' .. i .. '":1' end) .. "}"))
end }
F.validate_deps = { 2000, function(n)
  local deps = csv(n, function(i) return '"k' .. i .. '":["x' .. i .. '"]' end)
  local s = assert(coax.schema('{"dependentRequired":{' .. deps .. '}}'))
  return validate(s, json.decode("{" .. csv(n, function(i) return '"k' .. i .. '":1' end) .. "}"))
end }

F.tokens_long_word = { 200000, function(n) local t = rep("a", n) return function() coax.tokens(t) end end }
F.tokens_marks = { 50000, function(n) local t = "e" .. rep("\u{301}", n) return function() coax.tokens(t) end end }
F.tokens_digits = { 200000, function(n) local t = rep("7", n) return function() coax.tokens(t) end end }
F.tokens_cjk = { 50000, function(n) local t = rep("\u{4e2d}", n) return function() coax.tokens(t) end end }
F.tokens_spaces = { 200000, function(n) local t = rep(" ", n) .. "x" return function() coax.tokens(t) end end }
F.tokens_punct = { 200000, function(n) local t = rep("!?", n) return function() coax.tokens(t) end end }
F.tokens_zwj = { 50000, function(n) local t = rep("\u{1F468}\u{200D}", n) return function() coax.tokens(t) end end }
F.tokens_invalid = { 200000, function(n) local t = rep("\xff", n) return function() coax.tokens(t) end end }
F.tokens_chat = { 2000, function(n)
  local m = {}
  for i = 1, n do m[i] = { role = "user", content = "hello there " .. i } end
  return function() coax.tokens_chat(m) end
end }

local feedback = require "coax.feedback"
F.feedback_errors = { 1000, function(n)
  local s = assert(coax.schema('{"type":"array","items":{"type":"integer"}}'))
  local r = coax.extract("[" .. rep('"x"', n, ", ") .. "]", s)
  local ctx = { attempt = 1, max_attempts = 3, prompt = "p", errors = r.errors, coercions = r.coercions,
    value = r.value, coerced_value = r.value, reply = "x" }
  return function() feedback.render("validation", ctx) end
end }

-- round 25, second pass
F.repair_errors_many_lines = { 2000, function(n) return repair("[\n" .. rep("'a',\n", n) .. "]") end }
F.repair_unquoted_many_lines = { 2000, function(n)
  return repair("{\n" .. csv(n, function(i) return "k" .. i .. ": v" .. i .. "\n" end) .. "}")
end }
F.extract_long_typo_key = { 4000, function(n)
  local name = rep("ab", n)
  local s = assert(coax.schema('{"type":"object","properties":{"' .. name .. '":{"type":"integer"}},'
    .. '"additionalProperties":false}'))
  return extract('{"' .. name:sub(1, -2) .. 'x": 1}', s)
end }
F.extract_long_near_keys = { 1000, function(n)
  local props = csv(8, function(i) return ('"%s%d":{"type":"integer"}'):format(rep("q", n), i) end)
  local s = assert(coax.schema('{"type":"object","properties":{' .. props .. '},"additionalProperties":false}'))
  return extract("{" .. csv(8, function(i) return ('"%s%dx": 1'):format(rep("q", n), i) end) .. "}", s)
end }
F.extract_number_words = { 200, function(n)
  local s = assert(coax.schema('{"type":"integer"}'))
  return extract('"' .. rep("one hundred", n, " and ") .. '"', s)
end }
F.extract_number_separators = { 20000, function(n)
  local s = assert(coax.schema('{"type":"number"}'))
  return extract('"' .. rep("123", n, ",") .. '"', s)
end }
F.extract_enum_long = { 4000, function(n)
  local v = rep("Ab", n)
  local s = assert(coax.schema('{"enum":["' .. v .. '","' .. v .. 'c"]}'))
  return extract('"' .. v:lower() .. 'C x"', s)
end }
F.validate_contains = { 4000, function(n)
  local s = assert(coax.schema('{"contains":{"type":"string"},"minContains":' .. n .. '}'))
  return validate(s, json.decode("[" .. rep("1", n, ",") .. "]"))
end }
F.validate_unevaluated = { 200, function(n)
  local all = csv(n, function(i) return '{"properties":{"p' .. i .. '":true}}' end)
  local s = assert(coax.schema('{"allOf":[' .. all .. '],"unevaluatedProperties":false}'))
  return validate(s, json.decode("{" .. csv(n, function(i) return '"p' .. i .. '":1' end) .. "}"))
end }
F.validate_enum_deep = { 200, function(n)
  local v = rep("[", n) .. "1" .. rep("]", n)
  local s = assert(coax.schema('{"enum":[' .. rep(v, 50, ",") .. ',2]}'))
  return validate(s, json.decode(rep("[", n) .. "2" .. rep("]", n)))
end }
F.validate_format_regex_wide = { 2000, function(n)
  local s = assert(coax.schema('{"format":"regex"}'))
  return validate(s, rep("a", n, "|"))
end }
F.validate_property_names = { 2000, function(n)
  local s = assert(coax.schema('{"propertyNames":{"pattern":"^[a-z]+[0-9]*$","maxLength":5}}'))
  return validate(s, json.decode("{" .. csv(n, function(i) return '"key' .. i .. '":1' end) .. "}"))
end }
F.validate_if_chain = { 50, function(n)
  local sch = '{"type":"integer"}'
  for i = 1, 8 do sch = '{"if":{"minimum":' .. i .. '},"then":' .. sch .. ',"else":' .. sch .. '}' end
  local s = assert(coax.schema('{"items":' .. sch .. '}'))
  return validate(s, json.decode("[" .. rep("1.5", n, ",") .. "]"))
end }
F.example_min_length = { 100000, function(n)
  local s = assert(coax.schema('{"type":"string","minLength":' .. n .. '}'))
  return function() coax.example(s) end
end }
F.example_min_items = { 20000, function(n)
  local s = assert(coax.schema('{"type":"array","minItems":' .. n .. ',"uniqueItems":true,"items":{"type":"integer"}}'))
  return function() coax.example(s) end
end }
F.example_pattern = { 200, function(n)
  local s = assert(coax.schema('{"type":"string","pattern":"^' .. rep("[a-z]", n) .. '$"}'))
  return function() coax.example(s) end
end }
F.json_encode_keys = { 20000, function(n)
  local t = json.decode("{" .. csv(n, function(i) return '"k' .. i .. '":' .. i end) .. "}")
  return function() json.encode(t) end
end }
F.json_decode_deep = { 100, function(n)
  local t = rep(rep("[", 400) .. rep("]", 400), n, ",")
  return function() json.decode("[" .. t .. "]") end
end }

-- the rules added since round 24
F.repair_comma_closer = { 1000, function(n) return repair("[" .. rep("apple,] banana, cherry]", n, ", ") .. "]") end }
F.repair_comma_closer_line = { 1000, function(n) return repair("[apple," .. rep(" banana,", n) .. " cherry]") end }
F.repair_comma_closer_many = { 1000, function(n) return repair("[" .. rep("a,", n) .. rep("]", n)) end }
F.repair_closed_early = { 1000, function(n) return repair(rep("{}a: b}, ", n)) end }
F.repair_open_stray = { 1000, function(n) return repair(rep('{"a": [1}, ', n)) end }
F.repair_open_doubled = { 1000, function(n) return repair("[" .. rep('["a", "b", {"a": [[1, 2]', n, ", ")) end }
F.repair_glued_quote = { 1000, function(n) return repair("[" .. rep('5""', n, ", ") .. "]") end }
F.repair_glued_quote_obj = { 1000, function(n)
  return repair("{" .. csv(n, function(i) return '"k' .. i .. '": 36",notes' .. i .. '": 1' end) .. "}")
end }
F.repair_empty_doubled = { 1000, function(n) return repair("[" .. rep("[42.1][]", n, ", ")) end }
F.repair_comma_closed_container = { 1000, function(n) return repair(rep('{"u": {"n": "Eve",} "age": 3}', n, " ")) end }
F.repair_invisible = { 20000, function(n)
  return repair(rep("\u{200B}", n) .. '{"a":' .. rep("\u{FEFF}", n) .. '1}')
end }
F.repair_invisible_tokens = { 4000, function(n) return repair("[" .. rep("1\u{200B},\u{2060}", n) .. "2]") end }
F.extract_brace_bracket = { 1000, function(n)
  return extract(rep('{]"name": "Ada", "age": 3} ', n) .. '{"name":"Bob","age":4}', OBJ)
end }
F.extract_remark_paragraphs = { 1000, function(n)
  return extract(rep('{"name":"a","age":1}\n\n(wrong)\n\n', n), OBJ)
end }
F.extract_remark_tail = { 1000, function(n)
  return extract('{"name":"a","age":1}\n\n' .. rep("(wrong)\n\nLet me know if you need anything else!\n\n", n), OBJ)
end }
F.extract_invisible = { 20000, function(n)
  return extract(rep("\u{200B}", n) .. '{"name":"a","age":1}' .. rep("\u{2060}", n), OBJ)
end }
F.extract_members_before = { 1000, function(n)
  return extract(rep('"name": "Ada", ', n) .. '{"name":"Bob","age":4}', OBJ)
end }
F.extract_key_in_list = { 1000, function(n)
  return extract(rep('["n": [1, 2]} ', n) .. '{"name":"Bob","age":4}', OBJ)
end }

-- the prose rules over many statements
local function wide(n)
  return assert(coax.schema('{"type":"object","properties":{' .. csv(n, function(i)
    return ('"f%d":{"type":"integer"}'):format(i) end) .. '}}'))
end
F.extract_rival_spans = { 200, function(n)
  return extract(csv(n, function(i) return ('Option %d: {"name": "a%d", "age": %d}'):format(i, i, i) end, "\n"), OBJ)
end }
F.extract_restated = { 1000, function(n) return extract('{"name":"a","age":1}\n' .. rep("The age is 1. ", n), OBJ) end }
F.extract_contradicted = { 300, function(n)
  local j = "{" .. csv(n, function(i) return ('"f%d": %d'):format(i, i) end) .. "}"
  local prose = {}
  for i = 1, n do prose[i] = ("f%d is %d."):format(i, i + 1) end
  return extract(j .. "\n" .. table.concat(prose, " "), wide(n))
end }
F.extract_contradicted_same = { 300, function(n)
  local j = "{" .. csv(n, function(i) return ('"f%d": %d'):format(i, i) end) .. "}"
  local prose = {}
  for i = 1, n do prose[i] = ("f%d is %d."):format(i, i) end
  return extract(table.concat(prose, " ") .. "\n" .. j, wide(n))
end }
F.extract_retract_words = { 1000, function(n)
  return extract(rep("Actually, wait, no. ", n) .. '{"name":"a","age":1}', OBJ)
end }
F.extract_placeholders = { 1000, function(n)
  local s = assert(coax.schema('{"type":"array","items":{"type":"string"}}'))
  return extract("[" .. rep('"<name>"', n, ", ") .. "]", s)
end }
F.extract_null_texts = { 1000, function(n)
  local s = assert(coax.schema('{"type":"array","items":{"type":["integer","null"]}}'))
  return extract("[" .. rep('"None"', n, ", ") .. "]", s)
end }
F.extract_prose_table = { 500, function(n)
  return extract("| name | age |\n|---|---|\n" .. rep("| a | 1 |\n", n) .. '{"name":"a","age":1}', OBJ)
end }
F.extract_bare_values = { 1000, function(n)
  local s = assert(coax.schema('{"type":"integer"}'))
  return extract(rep("The answer may be 42 or 43. ", n), s)
end }
F.extract_unwrapped = { 500, function(n)
  return extract(rep('{"result": ', n) .. '{"name":"a","age":1}' .. rep("}", n), OBJ)
end }
F.extract_sure_words = { 1000, function(n)
  return extract(rep("I am not sure, maybe, perhaps. ", n) .. '{"name":"a","age":1}', OBJ)
end }

-- the example's generator on patterns
local function example_of(schema)
  local s = assert(coax.schema(schema))
  return function() coax.example(s) end
end
F.example_alternatives = { 500, function(n)
  return example_of('{"type":"string","pattern":"^(' .. csv(n, function(i) return "w" .. i end):gsub(",", "|") .. ')$"}')
end }
F.example_nested_groups = { 50, function(n)
  return example_of('{"type":"string","pattern":"^' .. rep("(a", n) .. rep(")", n) .. 'b$"}')
end }
F.example_quantifier = { 2000, function(n) return example_of('{"type":"string","pattern":"^(ab|cd){' .. n .. '}$"}') end }
F.example_pattern_min = { 2000, function(n)
  return example_of('{"type":"string","pattern":"^[a-c]*x[0-9]+$","minLength":' .. n .. '}')
end }
F.example_unique_objects = { 500, function(n)
  return example_of('{"type":"array","minItems":' .. n .. ',"uniqueItems":true,"items":{"type":"object",'
    .. '"properties":{"a":{"type":"integer"}},"required":["a"]}}')
end }
F.example_deep_required = { 50, function(n)
  local sch = '{"type":"integer"}'
  for i = 1, n do sch = '{"type":"object","required":["k' .. i .. '"],"properties":{"k' .. i .. '":' .. sch .. '}}' end
  return example_of(sch)
end }
F.example_anyof_refs = { 200, function(n)
  local defs = csv(n, function(i) return ('"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"type":"integer","minimum":%d}]}'):format(i, i + 1, i) end)
  return example_of('{"$defs":{' .. defs .. ',"d' .. (n + 1) .. '":{"type":"string"}},"$ref":"#/$defs/d1"}')
end }

-- guesses
local function guess(text) return function() coax.repair(text, { guess = true }) end end
F.guess_quotes = { 1000, function(n) return guess("[" .. rep('"a" b"', n, ", ") .. "]") end }
F.guess_missing_commas = { 1000, function(n) return guess("{" .. csv(n, function(i) return ('"k%d": "v"'):format(i) end):gsub(",", " ") .. "}") end }
F.guess_stray_closers = { 1000, function(n) return guess("[" .. rep("[1, 2]]", n, ", ") .. "]") end }
F.guess_comments = { 1000, function(n) return guess("{" .. csv(n, function(i) return ('"k%d": %d // %d'):format(i, i, i + 1) end, "\n") .. "}") end }
F.guess_open_lists = { 1000, function(n) return guess(rep("[1, [2", n, ", ")) end }
F.guess_two_values = { 1000, function(n) return guess(rep('{"a": 1} or {"a": 2} ', n)) end }

local function time_of(run)
  local best = math.huge
  for _ = 1, 3 do
    collectgarbage()
    local t0 = os.clock()
    run()
    best = math.min(best, os.clock() - t0)
  end
  return best
end

local filter, size = arg[1], tonumber(arg[2])
local names = {}
for k in pairs(F) do names[#names + 1] = k end
table.sort(names)
if size then -- one run, for callgrind
  local run = F[filter][2](size)
  run()
  return
end
for _, name in ipairs(names) do
  if not filter or name:find(filter, 1, true) then
    local n0, make = F[name][1] * (tonumber(os.getenv("SCALE")) or 1) // 1, F[name][2]
    local t, ratios = {}, {}
    for k = 0, 3 do
      local ok, run = pcall(make, n0 << k)
      if not ok then t = nil print(name, "build failed", run) break end
      local ok2, tt = pcall(time_of, run)
      if not ok2 then t = nil print(name, "run failed", tt) break end
      t[k] = tt
    end
    if t then
      for k = 1, 3 do ratios[k] = ("%.2f"):format(t[k] / math.max(t[k - 1], 1e-6)) end
      local flag = (t[3] / math.max(t[2], 1e-6) > 2.3 and t[3] > 0.005) and "  <-- lead" or ""
      print(("%-32s n=%-7d %8.4f s at 8n  ratios %s%s"):format(name, n0, t[3], table.concat(ratios, " "), flag))
      io.stdout:flush()
    end
  end
end
