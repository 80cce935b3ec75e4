-- Shared by the wrk scripts of `make bench` (loaded with dofile from BENCH_LUA_DIR).
-- Every thread counts the requests it sent in `sent` and the answers it judged wrong in
-- `failures`; done() adds the socket errors wrk saw, names the requests still unanswered when
-- the run ended, and prints one machine-readable line for scripts/bench/load.py.

bench = {}
bench.threads = {}

-- The non-empty lines of a file, as a list of strings.
function bench.lines(path)
  local list = {}
  if path == nil or path == "" then return list end
  local file = assert(io.open(path, "r"))
  for line in file:lines() do
    if line ~= "" then list[#list + 1] = line end
  end
  file:close()
  return list
end

-- A JSON object with an "items" array: what GET /api/feed answers (proto3 JSON writes
-- empty arrays too).
function bench.is_feed(body)
  return body ~= nil and body:find("^%s*{") ~= nil and body:find('"items"%s*:%s*%[') ~= nil
end

-- Called in the main state for every thread: keep them to read their counters in done().
function setup(thread)
  bench.threads[#bench.threads + 1] = thread
  thread:set("thread_index", #bench.threads)
end

function done(summary, latency, requests)
  local failures, feeds, writes, sent = 0, 0, 0, 0
  for _, thread in ipairs(bench.threads) do
    sent = sent + (thread:get("sent") or 0)
    failures = failures + (thread:get("failures") or 0)
    feeds = feeds + (thread:get("feeds") or 0)
    writes = writes + (thread:get("writes") or 0)
  end
  local e = summary.errors
  local errors = failures + e.connect + e.read + e.write + e.timeout
  io.write(string.format(
    'BENCH_RESULT {"requests": %d, "errors": %d, "failures": %d, "socket_errors": %d, "feeds": %d, '
      .. '"writes": %d, "unanswered": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "p999_us": %d, '
      .. '"max_us": %d}\n',
    summary.requests, errors, failures, e.connect + e.read + e.write + e.timeout, feeds, writes,
    math.max(sent - feeds - writes - failures, 0),
    summary.duration, latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
