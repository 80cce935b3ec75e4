-- POST /api/preview/post (JSON) as an uploader app: BENCH_PAIRS holds "TOKEN STREAMID" lines
-- (streamer tokens and a stream each owns), rotated per request. With BENCH_PATH set (the
-- nginx ceiling) it GETs that path instead. An answer is good when it is 200 and names an
-- uploadId.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")

local path = os.getenv("BENCH_PATH")
local movie_bytes = tonumber(os.getenv("BENCH_MOVIE_BYTES") or "2048")
local thumbnail_bytes = tonumber(os.getenv("BENCH_THUMBNAIL_BYTES") or "512")

function init(args)
  pairs_list = {}
  for _, line in ipairs(bench.lines(os.getenv("BENCH_PAIRS"))) do
    local token, stream = line:match("^(%S+)%s+(%d+)$")
    pairs_list[#pairs_list + 1] = { token = token, stream = stream }
  end
  math.randomseed(os.time() * 1000 + (thread_index or 0))
  index = math.random(math.max(#pairs_list, 1))
  failures, feeds, writes, sent = 0, 0, 0, 0
end

function request()
  sent = sent + 1
  local pair = pairs_list[index]
  index = index % #pairs_list + 1
  local headers = { ["Authorization"] = "Bearer " .. pair.token }
  if path ~= nil and path ~= "" then return wrk.format("GET", path, headers) end
  headers["Content-Type"] = "application/json"
  local body = string.format(
    '{"streamId": "%s", "movieBytes": %d, "thumbnailBytes": %d, '
      .. '"movieContentType": "video/mp4", "thumbnailContentType": "image/jpeg"}',
    pair.stream, movie_bytes, thumbnail_bytes)
  return wrk.format("POST", "/api/preview/post", headers, body)
end

function response(status, headers, body)
  if status == 200 and body:find('"uploadId"', 1, true) then
    writes = writes + 1
  else
    failures = failures + 1
  end
end
