#!/usr/bin/env python3
"""The viewer page (GET /) in a real browser against `streampreview serve`.

Starts serve on loopback (embedded Redis, a private data dir, no CORS: the page is on serve's own
origin), publishes sample clips through the HTTP API and drives Debian's Chromium headless
through chromedriver (selenium), 600 px wide so the strip scrolls. The page's own code is judged
from its DOM only, with a recorder this script adds to the page (a MutationObserver and an
`ended` listener, through DevTools, which the page's CSP does not restrict):

- anonymous: one cell per live stream in the feed's play order, thumbnails loaded, cells 15:9
  (height:width), like buttons disabled; exactly one <video> at a time, in the playing cell;
  two full round-robin cycles over 3 streams, each clip to its `ended` before the next;
- live: a stream committed during the run shows up at the strip's end within 2 s of the commit's
  answer (up to 3 tries on a loaded machine); the playing cell is centred in the strip (4 px);
  Enter and Space on a focused cell play it; ending a stream removes its cell, the playing one
  handing over to its successor; a pasted token enables the like buttons;
- with #token=: the token leaves the address bar; a like click counts one more, aria-pressed,
  and the feed agrees; a clip played to its end is marked seen; a new preview of the playing
  stream does not interrupt its clip, and its new clip plays next time round;
- every request stays on serve's origin (Resource Timing), the console has no error (a CSP
  violation would be one), and a screenshot goes to .build/viewer-screenshot.png;
- refused its event stream (another client holds the address's one slot): the strip still shows
  the live list and follows commits through feed reloads, the page retries with growing delays,
  and once the slot is free it goes live again.

Usage: viewer.py BINARY (run by scripts/test-browser.sh after drive.py).
"""

import json
import os
import re
import shutil
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium.webdriver.common.keys import Keys

from drive import Serve, browser, fail, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLIP = os.path.join(ROOT, "Tests/Fixtures/sample-clip.mp4")
THUMBNAIL = os.path.join(ROOT, "Tests/Fixtures/sample-thumbnail.jpg")
SCREENSHOT = os.path.join(ROOT, ".build/viewer-screenshot.png")
WINDOW = (600, 900)


def log(message):
    print("test-viewer: " + message, file=sys.stderr, flush=True)


# ---- The API, as the streamers' and viewers' apps use it ----------------------------------------


class Api:
    def __init__(self, serve):
        self.serve = serve
        self.base = serve.base
        self.streamer_tokens = {}

    def call(self, method, path, token=None, body=None, url=None):
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url or self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                text = answer.read()
                return answer.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def put(self, url, headers, path):
        with open(path, "rb") as file:
            data = file.read()
        # urllib sets Content-Length from the body; every other signed header is sent as named.
        sent = {name: value for name, value in headers.items() if name.lower() != "content-length"}
        request = urllib.request.Request(url, data=data, method="PUT", headers=sent)
        with urllib.request.urlopen(request, timeout=60) as answer:
            if answer.status != 200:
                fail(f"PUT {url}: {answer.status}")

    def streamer(self, stream_id):
        if stream_id not in self.streamer_tokens:
            self.streamer_tokens[stream_id] = self.serve.token(f"streamer-{stream_id}", "streamer", stream_id)
        return self.streamer_tokens[stream_id]

    def prepare(self, stream_id, description=None):
        """Upload URLs asked for and both files PUT: only the commit is left (see commit)."""
        token = self.streamer(stream_id)
        status, issued = self.call("POST", "/api/preview/post", token, {
            "streamId": str(stream_id), "movieBytes": os.path.getsize(CLIP),
            "thumbnailBytes": os.path.getsize(THUMBNAIL),
            "movieContentType": "video/mp4", "thumbnailContentType": "image/jpeg", **(description or {})})
        if status != 200:
            fail(f"upload URLs for stream {stream_id}: {status} {issued}")
        self.put(issued["movieBodyUrl"], issued["movieHeaders"], CLIP)
        self.put(issued["movieThumbnailBodyUrl"], issued["thumbnailHeaders"], THUMBNAIL)
        return issued["uploadId"]

    def commit(self, stream_id, upload_id):
        """Publishes the upload; returns the feed item and the monotonic time of the answer."""
        status, item = self.call("POST", "/api/preview/commit", self.streamer(stream_id),
                                 {"streamId": str(stream_id), "uploadId": upload_id})
        answered = time.monotonic()
        if status != 200:
            fail(f"commit of stream {stream_id}: {status} {item}")
        return item, answered

    def publish(self, stream_id, description=None):
        return self.commit(stream_id, self.prepare(stream_id, description))

    def end(self, stream_id):
        status, body = self.call("DELETE", f"/api/preview/{stream_id}", self.streamer(stream_id))
        if status != 204:
            fail(f"end of stream {stream_id}: {status} {body}")

    def feed(self, token=None):
        status, body = self.call("GET", "/api/feed?limit=50", token)
        if status != 200:
            fail(f"GET /api/feed: {status} {body}")
        return body["items"]


def path_of(url):
    return urllib.parse.urlsplit(url).path


# ---- The page, read through its DOM -----------------------------------------------------------

# Installed once per page load: every DOM change of the strip and every `ended` is logged with a
# snapshot (cells in order, playing cells, videos with a serial number each), so the play order,
# the one-video rule and the hand-overs are judged on every change, not on samples.
RECORDER = """
if (!window.__viewerTest) {
  const log = [];
  const serials = new WeakMap();
  let nextSerial = 1;
  const strip = document.getElementById('strip');
  const idOf = (node) => {
    const cell = node && node.closest ? node.closest('[data-stream-id]') : null;
    return cell ? cell.dataset.streamId : null;
  };
  const serial = (video) => {
    if (!serials.has(video)) serials.set(video, nextSerial++);
    return serials.get(video);
  };
  // Where the playing cell is at this moment: its centre's distance from the strip's visible
  // centre, and whether the strip can centre it at all (not clamped at either end).
  const position = () => {
    const cell = document.querySelector('[data-state="playing"]');
    if (!cell) return null;
    const view = strip.getBoundingClientRect();
    const box = cell.getBoundingClientRect();
    const offset = box.left + box.width / 2 - (view.left + strip.clientLeft + strip.clientWidth / 2);
    const target = strip.scrollLeft + offset;
    return { offset: offset, centrable: target >= 2 && target <= strip.scrollWidth - strip.clientWidth - 2 };
  };
  const snapshot = (kind) => ({
    kind: kind,
    t: performance.now(),
    ids: Array.from(strip.querySelectorAll('[data-stream-id]'), (cell) => cell.dataset.streamId),
    playing: Array.from(document.querySelectorAll('[data-state="playing"]'), (cell) => cell.dataset.streamId),
    videos: Array.from(document.querySelectorAll('video'),
                       (video) => ({ id: idOf(video), serial: serial(video), src: video.getAttribute('src') })),
    position: position(),
  });
  new MutationObserver((mutations) => {
    const entry = snapshot('dom');
    entry.images = [];
    for (const mutation of mutations) {
      if (mutation.type === 'attributes' && mutation.target.tagName === 'IMG') {
        entry.images.push({ id: idOf(mutation.target), src: mutation.target.getAttribute('src') });
      }
    }
    log.push(entry);
  }).observe(document.body, { subtree: true, childList: true, attributes: true,
                              attributeFilter: ['data-state', 'src'] });
  document.addEventListener('ended', (event) => {
    if (event.target.tagName !== 'VIDEO') return;
    const entry = snapshot('ended');
    entry.id = idOf(event.target);
    entry.serial = serial(event.target);
    log.push(entry);
  }, true);
  performance.setResourceTimingBufferSize(100000);
  window.__viewerTest = log;
  log.push(snapshot('start'));
}
return true;
"""

STATE = """
const strip = document.getElementById('strip');
const cells = Array.from(strip.querySelectorAll('[data-stream-id]'));
const view = strip.getBoundingClientRect();
const middle = view.left + strip.clientLeft + strip.clientWidth / 2;
return {
  status: document.getElementById('status').textContent,
  scrollLeft: strip.scrollLeft,
  maxScroll: strip.scrollWidth - strip.clientWidth,
  videos: document.querySelectorAll('video').length,
  cells: cells.map((cell) => {
    const box = cell.getBoundingClientRect();
    const img = cell.querySelector('img');
    const like = cell.querySelector('button[aria-label*="like" i]');
    const video = cell.querySelector('video');
    return {
      id: cell.dataset.streamId, playing: cell.dataset.state === 'playing',
      width: box.width, height: box.height,
      offset: box.left + box.width / 2 - middle,
      target: strip.scrollLeft + box.left + box.width / 2 - middle,
      img: img ? { loaded: img.complete && img.naturalWidth > 0, src: img.getAttribute('src') } : null,
      like: like ? { text: like.textContent.trim(), pressed: like.getAttribute('aria-pressed'),
                     label: like.getAttribute('aria-label'), disabled: like.disabled } : null,
      video: video ? { src: video.getAttribute('src'), time: video.currentTime, paused: video.paused } : null,
    };
  }),
};
"""


class Page:
    def __init__(self, driver, base):
        self.driver = driver
        self.base = base
        self.entries = []
        self.console = []

    def open(self, fragment=""):
        # From a blank page: a fragment change alone would not load the page again.
        self.driver.get("about:blank")
        self.driver.get(self.base + "/" + fragment)
        self.entries = []
        self.driver.execute_script(RECORDER)

    def state(self):
        return self.driver.execute_script(STATE)

    def ids(self):
        return [cell["id"] for cell in self.state()["cells"]]

    def cell(self, stream_id):
        for cell in self.state()["cells"]:
            if cell["id"] == str(stream_id):
                return cell
        return None

    def playing(self):
        return [cell for cell in self.state()["cells"] if cell["playing"]]

    def drain(self):
        """New recorder entries, checked for the one-video rule, appended to self.entries."""
        new = self.driver.execute_script("return window.__viewerTest.splice(0, window.__viewerTest.length);")
        for entry in new:
            check_one_video(entry, self.entries)
            self.entries.append(entry)
        return new

    def collect_console(self):
        self.console += self.driver.get_log("browser")

    def element(self, selector):
        return self.driver.find_element("css selector", selector)


def check_one_video(entry, earlier):
    """At most one <video>, inside the one cell marked playing; once one played, always one."""
    videos, playing = entry["videos"], entry["playing"]
    started = any(e["videos"] for e in earlier) or videos
    if len(videos) > 1 or len(playing) > 1:
        fail(f"more than one clip at once: {entry}")
    if started and entry["kind"] == "dom" and (len(videos) != 1 or playing != [videos[0]["id"]]):
        fail(f"the playing cell and its <video> disagree (exactly one must play): {entry}")


def sessions(entries):
    """The clips played, in order: one per <video> element, with whether it reached `ended`."""
    result = []
    for entry in entries:
        for video in entry["videos"]:
            if not result or result[-1]["serial"] != video["serial"]:
                result.append({"id": video["id"], "serial": video["serial"], "src": video["src"],
                               "ended": False, "first": entry})
        if entry["kind"] == "ended":
            for session in result:
                if session["serial"] == entry["serial"]:
                    session["ended"] = True
    return result


# ---- Checks ----------------------------------------------------------------------------------


def check_strip_matches_feed(page, api):
    feed = [item["streamId"] for item in api.feed()]
    wait_for(f"the strip to show the feed {feed}", lambda: page.ids() == feed, seconds=60)
    wait_for("every thumbnail to load", lambda: all(c["img"] and c["img"]["loaded"] for c in page.state()["cells"]))
    for cell in page.state()["cells"]:
        ratio = cell["height"] / cell["width"]
        if abs(ratio / (15 / 9) - 1) > 0.02:
            fail(f"cell {cell['id']} is {cell['width']}x{cell['height']}, not 9:15 (height/width {ratio:.3f})")
        if cell["like"] is None or not cell["like"]["disabled"]:
            fail(f"without a token the like button of cell {cell['id']} must be disabled: {cell['like']}")
    status = page.element("#status")
    if status.get_attribute("aria-live") != "polite" or not status.text.startswith(f"{len(feed)} live streams"):
        fail(f"the status line says {status.text!r} (aria-live {status.get_attribute('aria-live')})")
    log(f"strip = feed order {feed}, thumbnails loaded, cells 9:15, likes disabled without a token, "
        f"status {status.text!r}")
    return feed


DESCRIPTION = {"title": "Night synth jam", "altText": "Hands on a keyboard under purple light"}


def check_accessible_names(page):
    """A described preview's cell is named by its title and alt text; others by their number."""
    name = f"{DESCRIPTION['title']}: {DESCRIPTION['altText']}"
    label = page.element('[data-stream-id="102"] button.play').get_attribute("aria-label") or ""
    if label not in (f"Play {name}", f"Playing {name}"):
        fail(f"the described cell's button is named {label!r}, not after its title and alt text")
    alt = page.element('[data-stream-id="102"] img.thumb').get_attribute("alt")
    if alt != DESCRIPTION["altText"]:
        fail(f"the described cell's still has alt {alt!r}")
    plain = page.element('[data-stream-id="101"] button.play').get_attribute("aria-label") or ""
    if plain not in ("Play stream 101", "Playing stream 101"):
        fail(f"an undescribed cell's button is named {plain!r}")
    log(f"accessible names: {label!r}, still alt {alt!r}; an undescribed cell {plain!r}")


def check_round_robin(page, order, cycles=2):
    """Two full cycles: each clip ends, then the next cell in strip order plays, wrapping."""
    needed = cycles * len(order) + 1

    def enough():
        page.drain()
        state = page.state()
        if state["videos"] > 1:
            fail(f"{state['videos']} <video> elements at once")
        return len(sessions(page.entries)) >= needed

    wait_for(f"{needed} clips to play in turn", enough, every=0.2)
    played = sessions(page.entries)
    ids = [session["id"] for session in played]
    for before, after in zip(played, played[1:needed]):
        expected = order[(order.index(before["id"]) + 1) % len(order)]
        if after["id"] != expected:
            fail(f"after {before['id']} played {after['id']}, not {expected}; played {ids}, order {order}")
        if not before["ended"]:
            fail(f"clip {before['id']} was replaced before its end; played {ids}")
    log(f"round robin over {order}: played {ids[:needed]}, each to its end, one <video> at a time")


def check_live_insert(page, api, order, stream_ids):
    """A commit shows up as a new cell at the end within 2 s of its answer (3 tries)."""
    tries = []
    for stream_id in stream_ids:
        upload = api.prepare(stream_id)
        _, answered = api.commit(stream_id, upload)
        order.append(str(stream_id))
        while time.monotonic() - answered < 2.0 and str(stream_id) not in page.ids():
            time.sleep(0.02)
        seen_after = time.monotonic() - answered
        wait_for(f"stream {stream_id}'s cell", lambda: str(stream_id) in page.ids(), seconds=30)
        tries.append(round(seen_after, 2))
        if seen_after <= 2.0:
            log(f"stream {stream_id} committed: its cell appeared {seen_after:.2f} s after the answer "
                f"(tries: {tries})")
            return
    fail(f"a committed stream's cell took more than 2 s each time: {tries} s")


def check_centred(page):
    """The playing cell's centre is the strip's visible centre (4 px), for every cell that can be."""
    centred, worst = set(), {}
    state = page.state()
    if state["maxScroll"] < 100:
        fail(f"the strip does not scroll at {WINDOW[0]} px: {state}")

    def all_centred():
        page.drain()
        state = page.state()
        cells = state["cells"]
        # Cells the strip can centre (not clamped at either end), and not the end cells.
        possible = {c["id"] for c in cells[1:-1] if 2 <= c["target"] <= state["maxScroll"] - 2}
        if not possible:
            fail(f"no cell of the strip can be centred: {state}")
        for cell in cells:
            if cell["playing"] and cell["id"] in possible and cell["video"] and cell["video"]["time"] > 0:
                if abs(cell["offset"]) <= 4:
                    centred.add(cell["id"])
                else:
                    worst[cell["id"]] = min(worst.get(cell["id"], 1e9), abs(cell["offset"]))
        return possible <= centred and possible

    try:
        possible = wait_for("each playing cell to be centred in the strip", all_centred, every=0.1)
    except SystemExit:
        log(f"centred: {sorted(centred)}, closest offsets of the others: {worst}")
        raise
    log(f"playing cells centred within 4 px: {sorted(possible)} (strip scrolls {state['maxScroll']:.0f} px)")


def check_scroll_motion(page, reduced):
    """At the moment a clip starts on a cell the strip can centre: with reduced motion the strip is
    already there (an instant scroll); else it is still on its way (a smooth scroll)."""
    page.drain()
    starts = [s["first"]["position"] for s in sessions(page.entries)[1:] if s["first"]["kind"] == "dom"]
    starts = [p for p in starts if p and p["centrable"]]
    if not starts:
        fail("no clip started on a cell the strip can centre")
    if reduced and any(abs(p["offset"]) > 4 for p in starts):
        fail(f"with prefers-reduced-motion the strip did not jump to the playing cell: offsets {starts}")
    if not reduced and all(abs(p["offset"]) <= 4 for p in starts):
        fail(f"the strip jumps to the playing cell instead of scrolling smoothly: {starts}")
    log(f"scrolling is {'instant with' if reduced else 'smooth without'} prefers-reduced-motion "
        f"({len(starts)} clip starts)")


def check_keyboard(page, order):
    """Enter and Space on a focused cell play it at once (not by its turn)."""
    for key, name in [(Keys.ENTER, "Enter"), (Keys.SPACE, "Space")]:
        page.drain()
        current = page.playing()[0]["id"] if page.playing() else order[0]
        # The cell before the playing one: its turn comes last.
        target = order[(order.index(current) - 1) % len(order)]
        button = page.element(f'[data-stream-id="{target}"] button:not([aria-label*="like" i])')
        button.send_keys(key)
        wait_for(f"{name} on cell {target} to play it", lambda: target in [c["id"] for c in page.playing()],
                 seconds=30)
        page.drain()
        played = sessions(page.entries)
        chosen = [i for i, session in enumerate(played) if session["id"] == target]
        if not chosen or chosen[-1] == 0 or played[chosen[-1] - 1]["ended"]:
            fail(f"{name} on cell {target} did not start it out of turn: {[(s['id'], s['ended']) for s in played]}")
    log("Enter and Space on a focused cell play it")


def check_end_of_stream(page, api, order):
    """Ending the playing stream hands over to the next cell; ending another leaves play alone."""
    page.drain()
    wait_for("a middle cell to play", lambda: any(c["id"] in order[1:-1] for c in page.playing()), every=0.05)
    victim = page.playing()[0]["id"]
    successor = order[(order.index(victim) + 1) % len(order)]
    api.end(victim)
    wait_for(f"ended stream {victim}'s cell to go", lambda: victim not in page.ids(), seconds=30)
    page.drain()
    gone = next(e for e in page.entries if e["kind"] == "dom" and victim not in e["ids"])
    if gone["playing"] != [successor]:
        fail(f"when playing stream {victim} ended, {gone['playing']} played, not its successor {successor}")
    order.remove(victim)
    # One that is not playing, nor next: its cell goes, the clip that plays goes on.
    current = page.playing()[0]["id"]
    other = next(i for i in order if i != current and i != order[(order.index(current) + 1) % len(order)])
    api.end(other)
    wait_for(f"ended stream {other}'s cell to go", lambda: other not in page.ids(), seconds=30)
    page.drain()
    at = next(i for i, e in enumerate(page.entries) if e["kind"] == "dom" and other not in e["ids"])
    if page.entries[at]["videos"] != page.entries[at - 1]["videos"]:
        fail(f"ending stream {other}, which was not playing, changed the playing clip: "
             f"{page.entries[at - 1]['videos']} -> {page.entries[at]['videos']}")
    order.remove(other)
    if page.ids() != order:
        fail(f"after the ends the strip is {page.ids()}, not {order}")
    log(f"ended streams {victim} (playing: {successor} took over) and {other} left the strip")


def check_pasted_token(page, viewer):
    page.element("#token-input").send_keys(viewer)
    page.element("#token-use").click()
    wait_for("a pasted token to enable the like buttons",
             lambda: all(c["like"] and not c["like"]["disabled"] for c in page.state()["cells"]), seconds=30)
    log("a pasted token enables the like buttons")


def click_between_clips(page, element):
    """Clicks just after a clip started: the strip scrolls when a clip starts, and a scroll between
    WebDriver finding the element's place and clicking there would click something else."""
    wait_for("a clip to have just started", lambda: any(
        c["video"] and 0.05 < c["video"]["time"] < 1.0 for c in page.playing()), every=0.02)
    element.click()


def check_like(page, api, viewer):
    cells = page.state()["cells"]
    target = cells[-1]
    before = int(target["like"]["text"])
    if target["like"]["pressed"] != "false" or "like" not in target["like"]["label"].lower():
        fail(f"like button of {target['id']} before the click: {target['like']}")
    button = page.element(f'[data-stream-id="{target["id"]}"] button[aria-label*="like" i]')
    click_between_clips(page, button)
    wait_for(f"the like count of {target['id']} to become {before + 1}",
             lambda: (lambda like: like["text"] == str(before + 1) and like["pressed"] == "true")(
                 page.cell(target["id"])["like"]), seconds=30)
    item = next(i for i in api.feed(viewer) if i["streamId"] == target["id"])
    if item["likes"] != str(before + 1) or item["liked"] is not True:
        fail(f"after the like click the feed says {item['likes']} likes, liked {item['liked']}")
    click_between_clips(page, button)
    wait_for(f"the like count of {target['id']} to come back to {before}",
             lambda: (lambda like: like["text"] == str(before) and like["pressed"] == "false")(
                 page.cell(target["id"])["like"]), seconds=30)
    item = next(i for i in api.feed(viewer) if i["streamId"] == target["id"])
    if item["likes"] != str(before) or item["liked"] is not False:
        fail(f"after the unlike click the feed says {item['likes']} likes, liked {item['liked']}")
    click_between_clips(page, button)  # liked again, for the screenshot
    wait_for("the like again", lambda: page.cell(target["id"])["like"]["pressed"] == "true", seconds=30)
    log(f"like click on {target['id']}: {before} -> {before + 1}, aria-pressed, feed agrees; unlike undoes it")


def check_seen(page, api, viewer):
    def ended_clip():
        page.drain()
        return next((e["id"] for e in page.entries if e["kind"] == "ended"), None)

    stream_id = wait_for("a clip to play to its end", ended_clip)
    wait_for(f"the feed to show {stream_id} seen",
             lambda: any(i["streamId"] == stream_id and i["seen"] for i in api.feed(viewer)), seconds=30)
    log(f"stream {stream_id} played to its end and the viewer's feed shows it seen")


def check_update_while_playing(page, api, order):
    """A new preview of the playing stream: its clip plays on to its end; the cell gets the new
    thumbnail now and plays the new clip next time. Retried if the clip ended before the event."""
    for attempt in range(3):
        page.drain()
        current = page.playing()[0]["id"]
        # Prepared while another cell plays; committed as soon as the next one starts.
        target = order[(order.index(current) + 1) % len(order)]
        upload = api.prepare(target)
        wait_for(f"cell {target} to start", lambda: any(
            c["id"] == target and c["video"] and c["video"]["time"] < 1.0 for c in page.playing()), every=0.02)
        item, _ = api.commit(target, upload)
        new_thumbnail, new_movie = path_of(item["thumbnailUrl"]), path_of(item["movieUrl"])

        def updated():
            page.drain()
            return next((e for e in page.entries if any(
                i["id"] == target and path_of(i["src"] or "") == new_thumbnail for i in e.get("images", []))), None)

        change = wait_for(f"cell {target} to get its new thumbnail", updated, seconds=30)
        played = sessions(page.entries)
        session = next(s for s in reversed(played) if s["id"] == target)
        if not (change["videos"] and change["videos"][0]["serial"] == session["serial"]):
            log(f"the clip of {target} had ended before its update arrived; again (try {attempt + 1})")
            continue
        if path_of(session["src"]) == new_movie:
            fail(f"the playing clip of {target} was replaced by the new one")
        if page.ids() != order:
            fail(f"an update moved cells: {page.ids()}, not {order}")

        def old_clip_ended():
            page.drain()
            played = sessions(page.entries)
            old = next(s for s in played if s["serial"] == session["serial"])
            if not old["ended"] and played[-1]["serial"] != old["serial"]:
                fail(f"the clip of {target} was replaced before its end after its update")
            return old["ended"]

        def new_clip_played():
            page.drain()
            return any(s["id"] == target and path_of(s["src"]) == new_movie for s in sessions(page.entries))

        wait_for(f"the old clip of {target} to play to its end", old_clip_ended)
        wait_for(f"cell {target} to play its new clip next time round", new_clip_played)
        log(f"a new preview of playing stream {target} did not interrupt it; its new clip played next time")
        return
    fail("three times the playing clip ended before its update arrived")


def event_stream_answers(serve):
    """The statuses serve logged for GET /api/feed/events, in order."""
    return [int(match.group(1)) for match in re.finditer(
        r"route=/api/feed/events [^\n]*?status=(\d+)", serve.log_text())]


def hold_event_stream(base):
    """An event stream opened from this process (127.0.0.1): the socket, once answered 200."""
    address = urllib.parse.urlsplit(base)
    holder = socket.create_connection((address.hostname, address.port), timeout=30)
    holder.sendall(b"GET /api/feed/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = holder.recv(4096)
        if not chunk:
            fail("the held event stream was closed before its head")
        head += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        fail(f"the held event stream was refused: {head[:200]!r}")
    return holder


def check_refused_stream(driver, binary, work):
    """With every event stream of its address taken, the page still shows the live list, reads it
    again while it waits, comes back with growing delays (not in a loop) and goes live once a
    slot is free: a stream committed then shows up without a reload."""
    serve = Serve(binary, os.path.join(work, "data-refused"), os.path.join(work, "serve-refused.log"),
                  ["--max-event-streams-per-ip", "1"])
    try:
        api = Api(serve)
        api.publish(201)
        holder = hold_event_stream(serve.base)
        page = Page(driver, serve.base)
        page.open()
        wait_for("the strip while its event stream is refused", lambda: page.ids() == ["201"], seconds=60)
        api.publish(202)
        wait_for("a commit through the page's own feed reloads while refused",
                 lambda: sorted(page.ids()) == ["201", "202"], seconds=60)
        refusals = wait_for("two refused tries", lambda: len([s for s in event_stream_answers(serve) if s == 503]) >= 2
                            and event_stream_answers(serve), seconds=60)
        watched = time.monotonic()
        time.sleep(8)
        tries = [status for status in event_stream_answers(serve) if status == 503]
        # Delays of 1, 2, 4, 8 s (each drawn between half and all of it): at most 5 tries in 8 s.
        if len(tries) - len([s for s in refusals if s == 503]) > 5:
            fail(f"the refused page retried {len(tries)} times, not with growing delays")
        holder.close()
        wait_for("the page's event stream to be admitted once the slot is free",
                 lambda: event_stream_answers(serve).count(200) >= 2, seconds=90)
        _, answered = api.publish(203)
        appeared = wait_for("the commit as a live event",
                            lambda: "203" in page.ids() and time.monotonic(), seconds=30)
        log(f"refused page: {len(tries)} tries in {time.monotonic() - watched:.0f} s, live again; "
            f"stream 203 shown {appeared - answered:.1f} s after its commit")
    finally:
        serve.stop()


# Clicks the playing clip's picture once it has played 1.1 s (checked and clicked in one script,
# so the clip cannot change in between); returns its stream ID, or None when no clip is that far.
TAP_PLAYING = """
const cell = document.querySelector('[data-state="playing"]');
const video = cell && cell.querySelector('video');
if (!video || video.currentTime < 1.1 || video.currentTime > 1.7) return null;
cell.querySelector('button.play').click();
return cell.dataset.streamId;
"""


def stats(api, stream_id):
    status, body = api.call("GET", f"/api/streams/{stream_id}/stats", api.streamer(stream_id))
    if status != 200:
        fail(f"stats of {stream_id}: {status} {body}")
    return body


def check_tracking(page, api, order):
    """Copy link copies the tracking link and reports a share; a tap on a clip playing for over a
    second opens the stream through the tracking link, which counts the open and sends the
    browser to the stream's watch URL; the page reported the plays it started."""
    page.driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": api.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    target = order[0]
    page.element(f'[data-stream-id="{target}"] button.copy-link').click()
    wait_for("the copy-link notice", lambda: "copied" in page.state()["status"], seconds=30)
    copied = page.driver.execute_script("return navigator.clipboard.readText();")
    if copied != f"{api.base}/s/{target}":
        fail(f"copy link put {copied!r} on the clipboard, not the tracking link of {target}")
    wait_for(f"the share of {target} counted",
             lambda: stats(api, target)["versions"][0]["shares"] == "1", seconds=30)
    for stream_id in order:
        status, body = api.call("PUT", f"/api/streams/{stream_id}/watch", api.streamer(stream_id),
                                {"watchUrl": f"{api.base}/healthz?watching={stream_id}"})
        if status != 204:
            fail(f"watch URL of {stream_id}: {status} {body}")
    opened = wait_for("a tap on a clip playing for over a second",
                      lambda: page.driver.execute_script(TAP_PLAYING), every=0.02)
    wait_for(f"the browser to reach the watch URL of {opened}",
             lambda: page.driver.current_url == f"{api.base}/healthz?watching={opened}", seconds=30)
    figures = stats(api, opened)["versions"][0]
    if figures["opens"] != "1" or figures["distinctOpens"] != "1":
        fail(f"the open of {opened} was not counted once: {figures}")
    played = [stats(api, stream_id)["versions"][0]["plays"] for stream_id in order]
    if not any(int(plays) >= 1 for plays in played) or any(int(plays) > 2 for plays in played):
        fail(f"plays reported by the page (once per version and page load: two pages had a token): {played}")
    log(f"copy link copies {copied} and counts a share; a tap on playing {opened} opened its watch URL "
        f"through the tracking link (1 open); plays reported: {played}")


def check_requests(page, base):
    names = page.driver.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name)"
        ".concat(performance.getEntriesByType('navigation').map((e) => e.name));")
    outside = [name for name in names if not name.startswith(base + "/")]
    if outside:
        fail(f"the page requested other origins: {outside}")
    kinds = sorted({urllib.parse.urlsplit(name).path.split("/")[1] or "/" for name in names})
    return names, kinds


def check_console(page):
    page.collect_console()
    severe = [entry for entry in page.console if entry.get("level") == "SEVERE"]
    for entry in page.console:
        if entry.get("level") != "SEVERE":
            log(f"console {entry.get('level')}: {entry.get('message')}")
    if severe:
        fail("console errors:\n" + "\n".join(entry.get("message", "") for entry in severe))


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: viewer.py STREAMPREVIEW_BINARY")
    binary = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="sp-viewer-")
    serve = None
    driver = None
    passed = False
    started = time.monotonic()
    try:
        # Without --cors-origins: the viewer page is same-origin.
        # http watch URLs: the tracking check sends the browser to a page of this serve, on loopback.
        serve = Serve(binary, os.path.join(work, "data"), os.path.join(work, "serve.log"),
                      ["--watch-url-schemes", "http"])
        log(f"serve at {serve.base}")
        api = Api(serve)
        # One viewer pastes a token into the anonymous page; another opens the page with #token=,
        # so its seen marks and likes come from that page alone.
        paster = serve.token("viewer-paste", "viewer")
        viewer = serve.token("viewer-1", "viewer")
        for stream_id in (101, 102, 103):
            api.publish(stream_id, DESCRIPTION if stream_id == 102 else None)
        driver = browser(os.path.join(work, "profile"), os.path.join(work, "chromedriver.log"))
        driver.set_window_size(*WINDOW)
        page = Page(driver, serve.base)

        # Anonymous.
        page.open()
        order = check_strip_matches_feed(page, api)
        check_accessible_names(page)
        check_round_robin(page, order)
        check_live_insert(page, api, order, [104, 105, 106])
        for stream_id in range(int(order[-1]) + 1, 108):
            api.publish(stream_id)
            order.append(str(stream_id))
        wait_for("7 cells, new ones at the end", lambda: page.ids() == order, seconds=30)
        check_centred(page)
        check_scroll_motion(page, reduced=False)
        check_keyboard(page, order)
        check_end_of_stream(page, api, order)
        names, kinds = check_requests(page, serve.base)
        if any("/like" in name or "/seen" in name for name in names):
            fail(f"the anonymous page sent likes or seen marks: {names}")
        log(f"anonymous page: {len(names)} requests, all on {serve.base} ({', '.join(kinds)})")
        check_pasted_token(page, paster)
        page.collect_console()

        # With a viewer token in the address, and reduced motion.
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        page.open("#token=" + urllib.parse.quote(viewer, safe=""))
        wait_for("the token to leave the address bar", lambda: "token" not in driver.current_url, seconds=30)
        wait_for("the strip with the token", lambda: sorted(page.ids()) == sorted(order), seconds=60)
        order = page.ids()
        if any(item["seen"] or item["liked"] for item in api.feed(viewer)):
            fail(f"the viewer has marks before its page ran: {api.feed(viewer)}")
        check_like(page, api, viewer)
        check_seen(page, api, viewer)
        check_update_while_playing(page, api, order)
        check_scroll_motion(page, reduced=True)
        names, kinds = check_requests(page, serve.base)
        log(f"page with a token: {len(names)} requests, all on {serve.base} ({', '.join(kinds)})")
        check_console(page)

        driver.set_window_size(1100, 760)
        time.sleep(2)
        os.makedirs(os.path.dirname(SCREENSHOT), exist_ok=True)
        driver.save_screenshot(SCREENSHOT)
        check_tracking(page, api, page.ids())

        check_refused_stream(driver, binary, work)
        passed = True
        log(f"ok in {time.monotonic() - started:.0f} s (screenshot: {os.path.relpath(SCREENSHOT, ROOT)})")
    finally:
        if driver is not None:
            driver.quit()
        if serve is not None:
            serve.stop()
            if not passed:
                print(f"test-viewer: serve's log:\n{serve.log_text()[-6000:]}", file=sys.stderr)
        if passed:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"test-viewer: kept {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
