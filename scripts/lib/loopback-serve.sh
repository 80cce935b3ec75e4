# Sourced by the scripts that test the built binary over HTTP on loopback (test-openapi.sh,
# test-openapi-client.sh):
#   serve_start WHO BINARY DIR [FLAG...]  starts `BINARY serve` on a free loopback port with a
#                                         private data dir (DIR/data: embedded Redis, local store),
#                                         its sweep loop off (nothing changes but what the test
#                                         does) and FLAG...; waits up to 60 s for its ready line,
#                                         then sets SERVE_PID and SERVE_BASE (http://127.0.0.1:PORT)
#   serve_stop                            SIGTERM to SERVE_PID and waits for it (from an EXIT trap)
#   preview_media DIR                     DIR/clip.mp4 (1 s, 160x120, fast start) and
#                                         DIR/thumb.jpg (a JPEG), made with ffmpeg
SERVE_PID=""
SERVE_BASE=""

serve_start() {
  local who="$1" binary="$2" dir="$3"
  shift 3
  mkdir -p "$dir"
  "$binary" serve --host 127.0.0.1 --port 0 --data-dir "$dir/data" --sweep-interval 0 "$@" \
    >"$dir/serve.out" 2>"$dir/serve.err" &
  SERVE_PID=$!
  local deadline=$((SECONDS + 60))
  until grep -q '^listening on ' "$dir/serve.out"; do
    if ! kill -0 "$SERVE_PID" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      echo "$who: serve did not start:" >&2
      tail -20 "$dir/serve.err" >&2
      return 1
    fi
    sleep 0.1
  done
  SERVE_BASE="$(sed -n 's/^listening on //p' "$dir/serve.out" | head -1)"
  echo "$who: serve at $SERVE_BASE" >&2
}

serve_stop() {
  if [ -n "$SERVE_PID" ] && kill -0 "$SERVE_PID" 2>/dev/null; then
    kill -TERM "$SERVE_PID"
    wait "$SERVE_PID" || true
  fi
  SERVE_PID=""
}

preview_media() {
  local dir="$1"
  ffmpeg -loglevel error -y -f lavfi -i testsrc=duration=1:size=160x120:rate=10 -pix_fmt yuv420p \
    -movflags +faststart "$dir/clip.mp4"
  ffmpeg -loglevel error -y -f lavfi -i testsrc=size=160x120 -frames:v 1 "$dir/thumb.jpg"
}
