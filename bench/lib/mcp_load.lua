-- wrk script for genmcp's bench/driver.py: one MCP JSON-RPC request shape, repeated.
--
-- Configured through the environment (driver.py sets these):
--   BENCH_MODE      "modern" (2026-07-28, no session) or "legacy" (session from initialize)
--   BENCH_METHOD    JSON-RPC method, default "tools/call"
--   BENCH_TOOL      tool name for tools/call, default "add"
--   BENCH_ARGS      tool arguments as a JSON object, default {"a":1,"b":2}
--   BENCH_ARGS_FILE a file holding BENCH_ARGS instead (arguments too big for the environment)
--   BENCH_PARAMS    more members of params, raw JSON without braces (e.g. "cursor":"...")
--   BENCH_EXPECT    a substring every good body contains, default "result"
--   BENCH_VERSION   legacy: the negotiated MCP-Protocol-Version, default 2025-11-25
--   BENCH_SESSIONS  legacy: comma-separated Mcp-Session-Id values, one per wrk thread
--   BENCH_ACCEPT_ENCODING  an Accept-Encoding header (httpx sends "gzip, deflate"); a gzip
--                   body is good when it is gzip (wrk does not inflate it to check BENCH_EXPECT)
-- A response is bad when its status is not 200, it lacks BENCH_EXPECT, or it says
-- "isError":true. done() prints one line: BENCHJSON {...}.

local MODERN = "2026-07-28"

local function env(name, default)
  local v = os.getenv(name)
  if v == nil or v == "" then return default end
  return v
end

local cfg = {
  mode = env("BENCH_MODE", "modern"),
  method = env("BENCH_METHOD", "tools/call"),
  tool = env("BENCH_TOOL", "add"),
  args = env("BENCH_ARGS", '{"a":1,"b":2}'),
  args_file = env("BENCH_ARGS_FILE", nil),
  params = env("BENCH_PARAMS", nil),
  expect = env("BENCH_EXPECT", '"result"'),
  version = env("BENCH_VERSION", "2025-11-25"),
  accept_encoding = env("BENCH_ACCEPT_ENCODING", nil),
}

if cfg.args_file ~= nil then
  local f = assert(io.open(cfg.args_file, "rb"))
  cfg.args = f:read("*a")
  f:close()
end

local session_list = {}
for sid in string.gmatch(env("BENCH_SESSIONS", ""), "[^,]+") do session_list[#session_list + 1] = sid end

-- main-thread state: every thread object, to collect their counters in done()
local all_threads = {}

function setup(thread)
  local index = #all_threads + 1
  all_threads[index] = thread
  thread:set("thread_index", index)
  if #session_list > 0 then
    thread:set("session_id", session_list[((index - 1) % #session_list) + 1])
  end
end

-- per-thread state (each wrk thread has its own Lua state)
local seq = 0
local body_head, body_tail
bad = 0
non200 = 0
local shown = 0

local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

function init(argv)
  local h = wrk.headers
  h["Content-Type"] = "application/json"
  h["Accept"] = "application/json, text/event-stream"
  if cfg.accept_encoding ~= nil then h["Accept-Encoding"] = cfg.accept_encoding end
  local params = {}
  if cfg.method == "tools/call" then
    params[#params + 1] = '"name":' .. json_string(cfg.tool)
    params[#params + 1] = '"arguments":' .. cfg.args
  end
  if cfg.params ~= nil then params[#params + 1] = cfg.params end
  if cfg.mode == "modern" then
    h["MCP-Protocol-Version"] = MODERN
    h["Mcp-Method"] = cfg.method
    if cfg.method == "tools/call" then h["Mcp-Name"] = cfg.tool end
    params[#params + 1] = '"_meta":{' ..
      '"io.modelcontextprotocol/protocolVersion":"' .. MODERN .. '",' ..
      '"io.modelcontextprotocol/clientCapabilities":{},' ..
      '"io.modelcontextprotocol/clientInfo":{"name":"genmcp-bench","version":"1.0"}}'
  else
    h["MCP-Protocol-Version"] = cfg.version
    if session_id ~= nil then h["Mcp-Session-Id"] = session_id end
  end
  -- ids are unique per thread (legacy servers key in-flight requests by id)
  body_head = '{"jsonrpc":"2.0","id":'
  body_tail = ',"method":' .. json_string(cfg.method) .. ',"params":{' .. table.concat(params, ",") .. '}}'
end

function request()
  seq = seq + 1
  return wrk.format("POST", nil, nil, body_head .. (thread_index * 100000000 + seq) .. body_tail)
end

function response(status, headers, body)
  local gzipped = headers["Content-Encoding"] == "gzip" or headers["content-encoding"] == "gzip"
  local ok = status == 200 and body ~= nil
  if ok and gzipped then
    ok = string.sub(body, 1, 2) == "\31\139"
  elseif ok then
    ok = string.find(body, cfg.expect, 1, true) ~= nil
      and string.find(body, '"isError":true', 1, true) == nil
  end
  if not ok then
    bad = bad + 1
    if status ~= 200 then non200 = non200 + 1 end
    if shown < 2 then
      shown = shown + 1
      io.stderr:write(string.format("bad response (status %d): %s\n", status, string.sub(tostring(body), 1, 400)))
    end
  end
end

function done(summary, latency, requests)
  local total_bad, total_non200 = 0, 0
  for _, t in ipairs(all_threads) do
    total_bad = total_bad + (t:get("bad") or 0)
    total_non200 = total_non200 + (t:get("non200") or 0)
  end
  local e = summary.errors
  local pct = {}
  for _, p in ipairs({50, 90, 99, 99.9}) do pct[#pct + 1] = latency:percentile(p) end
  io.write(string.format(
    'BENCHJSON {"requests":%d,"duration_us":%d,"bytes":%d,"bad":%d,"non200":%d,' ..
    '"err_connect":%d,"err_read":%d,"err_write":%d,"err_status":%d,"err_timeout":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, total_bad, total_non200,
    e.connect, e.read, e.write, e.status, e.timeout,
    pct[1], pct[2], pct[3], pct[4], latency.max, latency.mean))
end
