-- wrk script for bench/tasks_overhead.py: one 2026-07-28 request that declares the Tasks
-- extension, repeated. Environment: BENCH_METHOD (tools/call, tasks/get), BENCH_NAME (the
-- Mcp-Name value: tool name or task id), BENCH_PARAMS (the params members before _meta, as
-- JSON text without braces), BENCH_EXPECT (a substring every good body contains).
-- done() prints one line: TASKSJSON {"requests":...,"duration_us":...,"bad":...}.

local method = os.getenv("BENCH_METHOD")
local name = os.getenv("BENCH_NAME")
local params = os.getenv("BENCH_PARAMS")
local expect = os.getenv("BENCH_EXPECT")
local threads = {}
local seq = 0
bad = 0

function setup(thread)
  threads[#threads + 1] = thread
  thread:set("index", #threads)
end

function init(argv)
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
  wrk.headers["Mcp-Method"] = method
  wrk.headers["Mcp-Name"] = name
end

function request()
  seq = seq + 1
  local body = '{"jsonrpc":"2.0","id":' .. (index * 100000000 + seq) .. ',"method":"' .. method ..
    '","params":{' .. params .. ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
    '"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}'
  return wrk.format("POST", nil, nil, body)
end

function response(status, headers, body)
  if status ~= 200 or string.find(body, expect, 1, true) == nil then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + (t:get("bad") or 0) end
  io.write(string.format('TASKSJSON {"requests":%d,"duration_us":%d,"bad":%d,"p50_us":%d}\n',
    summary.requests, summary.duration, total, latency:percentile(50)))
end
