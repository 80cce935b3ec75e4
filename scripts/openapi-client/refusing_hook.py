"""A moderation hook on loopback for serve --commit-hook-url: refuses the previews of the streams
named on its command line with a fixed reason, allows every other. Writes its port to PORT_FILE
once it listens. The signature is not checked: this hook stands in for an operator's service only
to make commit answer its 422.

Usage: refusing_hook.py PORT_FILE STREAM_ID...
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REASON = "refused by the test hook"


def main() -> None:
    port_file, refused = sys.argv[1], set(sys.argv[2:])

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            if str(body.get("streamId")) in refused:
                verdict = {"allow": False, "reason": REASON}
            else:
                verdict = {"allow": True}
            answer = json.dumps(verdict).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    with open(port_file + ".tmp", "w") as file:
        file.write(str(server.server_address[1]))
    # Renamed into place, so a reader never sees half a port.
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
