--- Documents of records of which about 30% are mistyped (a number or a
-- boolean written as a string, a tag written without its array): the
-- "many schema errors" case of coercion's cost (issue 17 item 8). Used by
-- spec/coerce_spec.lua and bench/extract/mistyped_bench.lua.
local M = {}

M.schema = [[{"type":"array","items":{"type":"object","additionalProperties":false,
  "required":["id","name","price","active","tags"],
  "properties":{"id":{"type":"integer"},"name":{"type":"string"},"price":{"type":"number"},
    "active":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}}}}}]]

--- A JSON array of n records, the same for the same n.
function M.document(n)
  local seed = 12345
  local function rand(k) -- a small LCG, so the document is reproducible
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % k
  end
  local out = {}
  for i = 1, n do
    local id, price, active, tags = tostring(i), ("%d.%02d"):format(rand(100), rand(100)), tostring(i % 2 == 0),
      '["a","b"]'
    if rand(10) < 3 then
      local which = rand(4)
      if which == 0 then id = '"' .. id .. '"'
      elseif which == 1 then price = '"' .. price .. '"'
      elseif which == 2 then active = '"' .. active .. '"'
      else tags = '"a"' end
    end
    out[i] = ('{"id":%s,"name":"item %d","price":%s,"active":%s,"tags":%s}'):format(id, i, price, active, tags)
  end
  return "[" .. table.concat(out, ",") .. "]"
end

--- A document of about 'bytes' bytes.
function M.document_of_size(bytes)
  return M.document(math.max(1, bytes // 78))
end

return M
