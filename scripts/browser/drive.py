#!/usr/bin/env python3
"""A real browser on other origins against `streampreview serve --cors-origins`.

Starts serve on loopback (embedded Redis, a private data dir) allowing the origin of one static
page server, serves scripts/browser/page.html with the sample clip and thumbnail from that port
and from a second one that is not listed (Python's http.server), and drives Debian's Chromium
headless through chromedriver (selenium). From the listed origin the page must upload, commit,
read the feed (and a 304 with its ETag) and play the clip in a <video> to its `ended` event; from
the other origin its first fetch must fail (the preflight refused: 403 without CORS fields in
serve's log). Every child is stopped by its PID. Usage: drive.py BINARY (run by
scripts/test-browser.sh).
"""

import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
# Generous: two cores shared with other builds.
DEADLINE_SECONDS = 90


def fail(message):
    raise SystemExit("test-browser: FAILED: " + message)


def wait_for(what, condition, seconds=DEADLINE_SECONDS, every=0.1):
    """Polls `condition` until it returns something truthy, or fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    fail(f"timed out after {seconds} s waiting for {what}")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def static_server(directory):
    """http.server on a free loopback port, in a thread of this process."""
    handler = functools.partial(QuietHandler, directory=directory)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class Serve:
    """`streampreview serve` on a free loopback port with `arguments` added; its stderr (the
    request log) in a file."""

    def __init__(self, binary, data_dir, log_path, arguments=()):
        self.binary = binary
        self.data_dir = data_dir
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
             "--sweep-interval", "0", "--shutdown-timeout", "2", *arguments],
            stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL)
        self.base = None
        ready = threading.Event()

        def read_ready_line():
            for line in self.process.stdout:
                match = re.match(rb"listening on (http://\S+)", line)
                if match:
                    self.base = match.group(1).decode()
                    ready.set()
            ready.set()

        threading.Thread(target=read_ready_line, daemon=True).start()
        if not ready.wait(DEADLINE_SECONDS) or self.base is None:
            self.stop()
            fail(f"serve did not print its listening line; log:\n{self.log_text()}")

    def token(self, sub, role, stream=None):
        arguments = [self.binary, "token", "--data-dir", self.data_dir, "--sub", sub, "--role", role]
        if stream is not None:
            arguments += ["--stream", str(stream)]
        return subprocess.run(arguments, check=True, capture_output=True, timeout=60).stdout.decode().strip()

    def log_text(self):
        with open(self.log_path, "rb") as log:
            return log.read().decode(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self.log.close()


def browser(profile_dir, driver_log):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--autoplay-policy=no-user-gesture-required", "--no-first-run",
                     f"--user-data-dir={profile_dir}"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER, log_output=driver_log), options=options)


def run_page(driver, page_origin, config):
    """Loads the page from `page_origin`, runs its flow, and returns what it recorded."""
    driver.get(page_origin + "/page.html")
    driver.execute_script("window.run(arguments[0]);", config)
    wait_for(f"the page on {page_origin} to finish",
             lambda: driver.execute_script("return document.getElementById('result').dataset.done === 'true';"))
    result = json.loads(driver.execute_script("return document.getElementById('result').textContent;"))
    print(f"test-browser: page on {page_origin}: {json.dumps(result)}", file=sys.stderr)
    return result


def console(driver):
    return "\n".join(entry.get("message", "") for entry in driver.get_log("browser"))


def options_request(base, path, origin):
    """A preflight as Chromium sends it: status and answer fields."""
    request = urllib.request.Request(base + path, method="OPTIONS", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def check_allowed(result, driver):
    steps = {step["step"]: step for step in result["steps"]}
    if result["error"]:
        fail(f"the listed origin's flow failed: {result['error']}\nbrowser console:\n{console(driver)}")
    for name, status in [("post", 200), ("put-clip", 200), ("put-thumbnail", 200), ("commit", 200),
                         ("feed", 200), ("feed-again", 304)]:
        if steps.get(name, {}).get("status") != status:
            fail(f"step {name}: expected {status}, got {steps.get(name)}")
    # Exposed answer fields are readable by the page's script.
    if not steps["post"].get("requestId"):
        fail("X-Request-Id was not readable: Access-Control-Expose-Headers missing")
    if not steps["feed"].get("etag"):
        fail("ETag of the feed was not readable")
    if "Content-Type" not in steps["put-clip"].get("sent", []):
        fail(f"the clip PUT did not send the signed Content-Type: {steps['put-clip']}")
    play = steps.get("play", {})
    if play.get("ended") is not True or abs(play.get("duration", 0) - 2.0) > 0.5 or play.get("width") != 160:
        fail(f"the clip did not play to its end as a 160x90 2 s video: {play}")


def check_blocked(result, serve, allowed_origin, blocked_origin):
    steps = result["steps"]
    if len(steps) != 1 or steps[0].get("step") != "post" or not steps[0].get("failed", "").startswith("TypeError"):
        fail(f"the unlisted origin's first fetch did not fail with a TypeError: {result}")
    # The browser's preflight reached serve and was refused there (not lost on the way).
    refused = re.compile(r"method=OPTIONS\b.*path=/api/preview/post\b.*status=403\b")
    wait_for("serve to log the refused preflight",
             lambda: any(refused.search(line) for line in serve.log_text().splitlines()), seconds=30)
    status, headers = options_request(serve.base, "/api/preview/post", blocked_origin)
    if status != 403 or headers.get("Access-Control-Allow-Origin") is not None:
        fail(f"a preflight from {blocked_origin}: {status} {dict(headers)}")
    status, headers = options_request(serve.base, "/api/preview/post", allowed_origin)
    if status != 204 or headers.get("Access-Control-Allow-Origin") != allowed_origin:
        fail(f"a preflight from {allowed_origin}: {status} {dict(headers)}")


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: drive.py STREAMPREVIEW_BINARY")
    binary = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="sp-browser-")
    serve = None
    servers = []
    driver = None
    passed = False
    try:
        site = os.path.join(work, "site")
        os.makedirs(site)
        shutil.copy(os.path.join(HERE, "page.html"), site)
        shutil.copy(os.path.join(ROOT, "Tests/Fixtures/sample-clip.mp4"), os.path.join(site, "clip.mp4"))
        shutil.copy(os.path.join(ROOT, "Tests/Fixtures/sample-thumbnail.jpg"), os.path.join(site, "thumbnail.jpg"))
        allowed_server, allowed_origin = static_server(site)
        blocked_server, blocked_origin = static_server(site)
        servers = [allowed_server, blocked_server]
        serve = Serve(binary, os.path.join(work, "data"), os.path.join(work, "serve.log"),
                      ["--cors-origins", allowed_origin])
        print(f"test-browser: serve at {serve.base}, pages at {allowed_origin} (listed) and {blocked_origin}",
              file=sys.stderr)
        driver = browser(os.path.join(work, "profile"), os.path.join(work, "chromedriver.log"))
        config = {"api": serve.base, "streamer": serve.token("streamer-41", "streamer", 41),
                  "viewer": serve.token("viewer-1", "viewer"), "streamId": 41}
        check_allowed(run_page(driver, allowed_origin, config), driver)
        blocked = dict(config, streamer=serve.token("streamer-42", "streamer", 42), streamId=42)
        check_blocked(run_page(driver, blocked_origin, blocked), serve, allowed_origin, blocked_origin)
        passed = True
        print("test-browser: ok (listed origin uploads, commits, reads the feed and plays the clip; "
              "another origin is blocked at its first fetch)", file=sys.stderr)
    finally:
        if driver is not None:
            driver.quit()
        for server in servers:
            server.shutdown()
        if serve is not None:
            serve.stop()
            if not passed:
                print(f"test-browser: serve's log:\n{serve.log_text()[-6000:]}", file=sys.stderr)
        if passed:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"test-browser: kept {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
