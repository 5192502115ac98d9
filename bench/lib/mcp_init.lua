-- wrk script for genmcp's bench/curves.py: opens legacy sessions, one `initialize` per request,
-- until each thread has BENCH_COUNT answers (then it stops). Every answer must be 200 and carry
-- "protocolVersion". done() prints one line: BENCHJSON {...}.
--   BENCH_COUNT     initialize answers per wrk thread
--   BENCH_VERSION   the protocol version offered, default 2025-11-25

local count = tonumber(os.getenv("BENCH_COUNT") or "1000")
local version = os.getenv("BENCH_VERSION") or "2025-11-25"
local all_threads = {}

function setup(thread)
  all_threads[#all_threads + 1] = thread
end

answered = 0
bad = 0
local body

function init(argv)
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  body = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"' ..
    version .. '","capabilities":{},"clientInfo":{"name":"genmcp-bench","version":"1.0"}}}'
end

function request()
  return wrk.format("POST", nil, nil, body)
end

function response(status, headers, resp)
  answered = answered + 1
  if status ~= 200 or resp == nil or string.find(resp, '"protocolVersion"', 1, true) == nil then
    bad = bad + 1
  end
  if answered >= count then wrk.thread:stop() end
end

function done(summary, latency, requests)
  local total, total_bad = 0, 0
  for _, t in ipairs(all_threads) do
    total = total + (t:get("answered") or 0)
    total_bad = total_bad + (t:get("bad") or 0)
  end
  io.write(string.format('BENCHJSON {"answered":%d,"bad":%d,"duration_us":%d,"p99_us":%d}\n',
    total, total_bad, summary.duration, latency:percentile(99)))
end
