-- GET the URL wrk is given (e.g. /api/feed?limit=20) with a bearer token from BENCH_TOKENS (one
-- a line; rotated per request; anonymous without the file). BENCH_EXPECT=feed (default) counts
-- an answer as good only when it is 200 with a feed body; BENCH_EXPECT=ok wants 200 alone.
-- BENCH_MIX_PERCENT > 0 (with BENCH_STREAMS, live stream IDs one a line) sends that share of
-- requests as POST /api/streams/{id}/like or /seen, half each: 200 with "likes", or 204.
-- BENCH_MIX_ACTIONS (comma list of like, unlike, seen; default like,seen) picks among others:
-- unlike is DELETE /api/streams/{id}/like.
-- BENCH_ACCEPT names a file whose first line is sent as every request's Accept.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")

local expect = os.getenv("BENCH_EXPECT") or "feed"
local mix = tonumber(os.getenv("BENCH_MIX_PERCENT") or "0")
local actions = {}
for action in string.gmatch(os.getenv("BENCH_MIX_ACTIONS") or "like,seen", "[^,]+") do
  actions[#actions + 1] = action
end

function init(args)
  tokens = bench.lines(os.getenv("BENCH_TOKENS"))
  accept = bench.lines(os.getenv("BENCH_ACCEPT"))[1]
  streams = bench.lines(os.getenv("BENCH_STREAMS"))
  math.randomseed(os.time() * 1000 + (thread_index or 0))
  index = math.random(math.max(#tokens, 1))
  failures, feeds, writes, sent = 0, 0, 0, 0
end

function request()
  sent = sent + 1
  local headers = {}
  if accept then headers["Accept"] = accept end
  if #tokens > 0 then
    index = index % #tokens + 1
    headers["Authorization"] = "Bearer " .. tokens[index]
  end
  if mix > 0 and #streams > 0 and math.random() * 100 < mix then
    local action = actions[math.random(#actions)]
    local path = "/api/streams/" .. streams[math.random(#streams)]
    if action == "unlike" then return wrk.format("DELETE", path .. "/like", headers) end
    return wrk.format("POST", path .. "/" .. action, headers)
  end
  return wrk.format("GET", nil, headers)
end

function response(status, headers, body)
  if status == 200 and (expect == "ok" or bench.is_feed(body)) then
    feeds = feeds + 1
  elseif mix > 0 and (status == 204 or (status == 200 and body:find('"likes"', 1, true))) then
    writes = writes + 1
  else
    failures = failures + 1
  end
end
