--- Transport retries for HTTP agents: one request, sent again after a
-- transient failure, with exponential backoff and jitter, under a budget of
-- its own. These retries never consume the session's attempts (design.md:
-- parse, schema and rejection failures share the attempt budget; transport
-- failures are the agent's business).
--
-- Retried: connection errors and timeouts, 408, 409, 429 and 5xx (529
-- "overloaded" included). Never retried: any other 4xx, and a 429 whose
-- error code is `insufficient_quota` (more waiting will not buy credit).
-- The server may decide: `x-should-retry: true|false` wins over the status,
-- and `retry-after-ms`, then `retry-after` (seconds or an HTTP date), then a
-- Google error's `RetryInfo.retryDelay` ("37s") set the wait when they are
-- sensible (0 to 60 s).
-- @module coax.transport
local coax = require "coax"
local cjson = require "cjson"

local M = {}

local floor, random, min = math.floor, math.random, math.min

M.MAX_RETRIES = 2
M.BASE_MS = 500
M.MAX_MS = 8000
local MAX_SERVER_WAIT_MS = 60000

local MONTHS = { Jan = 1, Feb = 2, Mar = 3, Apr = 4, May = 5, Jun = 6, Jul = 7, Aug = 8, Sep = 9, Oct = 10,
  Nov = 11, Dec = 12 }

-- Days since 1970-01-01 of a civil date (proleptic Gregorian).
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

--- Seconds since the epoch of an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"),
-- or nil.
-- @tparam string s
-- @treturn number|nil
function M.http_date(s)
  local d, mon, y, hh, mm, ss = s:match("^%a+, (%d%d?) (%a%a%a) (%d%d%d%d) (%d%d):(%d%d):(%d%d) GMT$")
  if not d or not MONTHS[mon] then return nil end
  return days_from_civil(tonumber(y), MONTHS[mon], tonumber(d)) * 86400 + tonumber(hh) * 3600 + tonumber(mm) * 60
    + tonumber(ss)
end

--- How long the server asks us to wait, in ms, or nil.
-- @tparam table headers the response's headers (names lower-cased)
-- @tparam[opt] number now seconds since the epoch (default os.time())
-- @treturn number|nil
function M.server_wait_ms(headers, now)
  local ms = tonumber(headers["retry-after-ms"] or "")
  if not ms then
    local after = headers["retry-after"]
    if after then
      local secs = tonumber(after)
      if not secs then
        local at = M.http_date(after)
        if at then secs = at - (now or os.time()) end
      end
      if secs then ms = secs * 1000 end
    end
  end
  if ms and ms >= 0 and ms <= MAX_SERVER_WAIT_MS then return ms end
  return nil
end

--- How long a Google API error body asks us to wait (its details'
-- `google.rpc.RetryInfo` `retryDelay`, a duration such as "37s" or
-- "1.500s"), in ms, or nil.
-- @tparam string body
-- @treturn number|nil
function M.retry_info_ms(body)
  local ok, doc = pcall(cjson.decode, body or "")
  local e = ok and type(doc) == "table" and doc.error
  if type(e) ~= "table" or type(e.details) ~= "table" then return nil end
  for _, d in ipairs(e.details) do
    local delay = type(d) == "table" and d["@type"] == "type.googleapis.com/google.rpc.RetryInfo" and d.retryDelay
    local secs = type(delay) == "string" and tonumber(delay:match("^(%d+%.?%d*)s$") or "")
    if secs and secs * 1000 <= MAX_SERVER_WAIT_MS then return secs * 1000 end
  end
  return nil
end

--- The backoff before retry number `n` (1, 2, ...): base * 2^(n-1), capped,
-- less up to a quarter at random so that many clients do not retry in step.
function M.backoff_ms(n, base, cap)
  local ms = min((base or M.BASE_MS) * 2 ^ (n - 1), cap or M.MAX_MS)
  return ms * (1 - 0.25 * random())
end

-- The provider's error code and message from an error body, if any.
local function provider_error(body)
  local ok, doc = pcall(cjson.decode, body or "")
  if not ok or type(doc) ~= "table" then return nil, nil end
  local e = doc.error
  if type(e) == "table" then
    -- Google's errors: a numeric code (the HTTP status) and the canonical name in status
    local code = type(e.status) == "string" and e.status or e.code ~= cjson.null and e.code or e.type
    return code ~= cjson.null and code or nil, type(e.message) == "string" and e.message or nil
  end
  if type(e) == "string" then return nil, e end
  if type(doc.message) == "string" then return nil, doc.message end
  return nil, nil
end
M.provider_error = provider_error

--- Whether a response (or a failure to get one) is worth another try.
-- @tparam table|nil resp the response, or nil when the request failed
-- @treturn boolean
function M.retryable(resp)
  if not resp then return true end -- connection errors and timeouts
  local should = resp.headers["x-should-retry"]
  if should == "true" then return true end
  if should == "false" then return false end
  local status = resp.status
  if status == 429 then
    local code = provider_error(resp.body)
    return code ~= "insufficient_quota"
  end
  return status == 408 or status == 409 or status >= 500
end

--- A URL fit for a message: no user information, no query (keys hide there).
-- @tparam string url
-- @treturn string
function M.shown_url(url)
  return (tostring(url):gsub("%?.*$", ""):gsub("^(%a[%w+.-]*://)[^/@]*@", "%1"))
end
local shown_url = M.shown_url

-- What went wrong, in one line: "HTTP 429 (rate_limit_exceeded): Slow down".
-- A response that says nothing is named so, and a 404 or 405 with no
-- provider error (a URL the server does not have: the base URL is the usual
-- cause) names the URL posted.
local function describe(req, resp, err, kind)
  if not resp then return ("%s (%s)"):format(err or "request failed", kind or "connection") end
  local code, message = provider_error(resp.body)
  local text = message or (resp.body or ""):sub(1, 200)
  if not text:find("%S") then text = "the response has no message" end
  local line = ("HTTP %d%s: %s"):format(resp.status, code and (" (" .. tostring(code) .. ")") or "", text)
  if (resp.status == 404 or resp.status == 405) and not message then
    line = ("%s (%s %s)"):format(line, req.method or "POST", shown_url(req.url))
  end
  return line
end

--- Sends `req` (coax.http.request options) until a response that is not a
-- transient failure, or the retries run out.
-- @tparam table req
-- @tparam table policy {max_retries?, base_ms?, max_ms?, name?, before_retry?}
--   (before_retry() is called before each new try, to reset a stream's reader)
-- @treturn[1] table the response (2xx)
-- @treturn[1] number retries used
-- @treturn[2] nil
-- @treturn[2] string the error: "NAME: HTTP 500: ... (after 2 retries)"
-- @treturn[2] table {status?, retries, kind?, response?}
function M.send(req, policy)
  policy = policy or {}
  local max_retries = policy.max_retries or M.MAX_RETRIES
  local name = policy.name or "http"
  local retries = 0
  while true do
    local resp, err, kind = coax.http.request(req)
    if resp and resp.status >= 200 and resp.status < 300 then return resp, retries end
    local again = M.retryable(resp)
    if not again or retries >= max_retries then
      local msg = ("%s: %s"):format(name, describe(req, resp, err, kind))
      if retries > 0 then msg = msg .. (" (after %d %s)"):format(retries, retries == 1 and "retry" or "retries") end
      return nil, msg, { status = resp and resp.status, retries = retries, kind = kind, response = resp }
    end
    retries = retries + 1
    local wait = resp and (M.server_wait_ms(resp.headers) or M.retry_info_ms(resp.body))
    coax.sleep(wait or M.backoff_ms(retries, policy.base_ms, policy.max_ms))
    if policy.before_retry then policy.before_retry() end
  end
end

--- One model request through `send`, its reply read by the agent's own
-- readers: a stream line by line as it arrives (`read.stream`: a new
-- `read.reader()` -> feed(line), result() for each try), else the whole
-- body (`read.parse(body)`). A server that ignored `stream` and answered
-- with one whole body is read as such; an empty stream is an error.
-- @tparam table req coax.http.request options (on_line is set here)
-- @tparam table policy as for `send` (its name prefixes the messages)
-- @tparam table read {stream, reader, parse, empty?}: `empty` is the error
--   for a stream with nothing in it (default "the stream carried no events")
-- @treturn[1] table the reply, with `retries`
-- @treturn[2] nil, the error, {status?, retries, ...}
function M.exchange(req, policy, read)
  local feed, result -- the stream's reader, made anew for each try
  if read.stream then
    req.on_line = function(line)
      if not feed then feed, result = read.reader() end
      feed(line)
    end
  end
  policy.before_retry = function() feed, result = nil, nil end
  local resp, retries, info = M.send(req, policy)
  if not resp then return nil, retries, info end
  local reply, err
  if read.stream and result then reply, err = result() end
  if not reply and not err then
    if read.stream and resp.body == "" then
      err = ("%s: %s"):format(policy.name, read.empty or "the stream carried no events")
    else
      reply, err = read.parse(resp.body)
    end
  end
  if not reply then return nil, err, { status = resp.status, retries = retries } end
  reply.retries = retries
  return reply
end

--- A reader of a stream of server-sent events whose data are JSON objects
-- (coax.json: order and numbers kept), for `exchange`'s `read.reader`:
-- handle(event) per event (it returns an error message to stop at), then
-- finish() -> the reply, unless an event was not JSON or failed. Lines that
-- are not `data:` (event names, comments, blanks) are skipped.
-- @tparam string name the agent's name, for messages
-- @tparam function handle
-- @tparam function finish
-- @treturn function feed(line)
-- @treturn function result() -> nothing when no line was an event, else
--   the reply or nil, the error
function M.json_events(name, handle, finish)
  local events, bad = 0, nil
  local function feed(line)
    local data = line:match("^data:%s?(.*)$")
    if not data or bad then return end
    events = events + 1
    local ev = coax.json.decode(data)
    if type(ev) ~= "table" then
      bad = name .. ": a streamed event is not JSON"
      return
    end
    bad = handle(ev)
  end
  local function result()
    if events == 0 then return nil end
    if bad then return nil, bad end
    return finish()
  end
  return feed, result
end

--- An agent's request headers: its `headers` option's (sorted by name, so
-- requests are the same from run to run), then `more` ({{name, value}, ...};
-- a nil value, such as a missing key's secret, is left out).
-- @tparam table o the agent options
-- @tparam table more
-- @treturn table {{name, value}, ...}
function M.headers(o, more)
  local h = {}
  if type(o.headers) == "table" then
    for k, v in pairs(o.headers) do h[#h + 1] = { k, v } end
    table.sort(h, function(a, b) return a[1] < b[1] end)
  end
  for _, kv in ipairs(more) do
    if kv[2] ~= nil then h[#h + 1] = kv end
  end
  return h
end

--- An agent's one model request: POST `body` to `url` with the agent
-- options' timeout and retry budget (timeout_ms, max_retries,
-- retry_base_ms, retry_max_ms), through `exchange`.
-- @tparam table o the agent options
-- @tparam string name the agent's name, for messages ("gemini agent")
-- @tparam table req {url, headers, body}
-- @tparam table read as for `exchange`
function M.post(o, name, req, read)
  req.method, req.timeout_ms = "POST", o.timeout_ms
  local policy = { name = name, max_retries = o.max_retries, base_ms = o.retry_base_ms, max_ms = o.retry_max_ms }
  return M.exchange(req, policy, read)
end

return M
