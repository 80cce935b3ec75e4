"""Tokens, minted by `streampreview token` with the secret every server of the run is given, and
cached under .build/bench/ with it (a secret older than 20 hours is replaced, and its tokens).

Python 3 standard library only.
"""

import json
import os
import secrets
import subprocess
import threading
import time

from api_client import parallel
from settings import BINARY, STREAMS_PER_TOKEN, WORK, log

class Tokens:
    def __init__(self):
        secret_file = WORK / "token-secret"
        self.cache_file = WORK / "tokens.json"
        fresh = secret_file.exists() and time.time() - secret_file.stat().st_mtime < 20 * 3600
        if not fresh:
            secret_file.write_text(secrets.token_hex(32))
            self.cache_file.unlink(missing_ok=True)
        self.secret = secret_file.read_text().strip()
        self.cache = json.loads(self.cache_file.read_text()) if self.cache_file.exists() else {}
        self.lock = threading.Lock()

    def environment(self):
        return dict(os.environ, STREAMPREVIEW_TOKEN_SECRET=self.secret)

    def _mint(self, spec):
        subject, role, streams = spec
        command = [str(BINARY), "token", "--sub", subject, "--role", role]
        for stream in streams:
            command += ["--stream", str(stream)]
        result = subprocess.run(command, env=self.environment(), capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError("streampreview token failed: %s" % result.stderr.strip())
        return result.stdout.strip()

    def many(self, specs):
        keys = ["%s|%s|%s" % (subject, role, ",".join(map(str, streams))) for subject, role, streams in specs]
        missing = [(key, spec) for key, spec in zip(keys, specs) if key not in self.cache]
        if missing:
            log("minting %d tokens with streampreview token" % len(missing))
            minted = parallel(lambda item: self._mint(item[1]), missing, workers=8)
            with self.lock:
                for (key, _), token in zip(missing, minted):
                    self.cache[key] = token
                self.cache_file.write_text(json.dumps(self.cache))
        return [self.cache[key] for key in keys]

    def viewers(self, prefix, count):
        return self.many([("%s-%d" % (prefix, n), "viewer", []) for n in range(count)])

    def streamers(self, stream_ids):
        """A streamer token for each stream, one token per block of STREAMS_PER_TOKEN streams."""
        stream_ids = list(stream_ids)
        blocks = [stream_ids[i : i + STREAMS_PER_TOKEN] for i in range(0, len(stream_ids), STREAMS_PER_TOKEN)]
        specs = [("streamer-%d-%d" % (block[0], block[-1]), "streamer", block) for block in blocks]
        owner = {}
        for block, token in zip(blocks, self.many(specs)):
            for stream in block:
                owner[stream] = token
        return owner

