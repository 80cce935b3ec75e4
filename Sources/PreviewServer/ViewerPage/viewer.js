// The viewer page: a strip of live-stream previews in the feed's play order, one muted clip
// playing at a time, round robin. The feed comes from GET api/feed; live changes come from the
// event stream api/feed/events (preview, removed, likes, reset). With a viewer token (pasted, or
// #token=... in the address) the page likes streams and marks clips it played to the end seen.
// A tap on the playing clip after it played a moment opens the stream through its tracking link
// (the server counts the open and sends the browser on to the stream's watch URL); "Copy link"
// copies that link. Plays started are reported with a token, once per preview version.
"use strict";

(() => {
  const FEED_URL = "api/feed?limit=50";
  const EVENTS_URL = "api/feed/events";
  const TOKEN_KEY = "streampreview.viewerToken";
  // A clip that makes no progress for this long while it should be playing is skipped.
  const STALL_MS = 15000;
  // After a clip fails, wait this long before the next one, so a strip of broken clips does not spin.
  const ERROR_SKIP_MS = 1000;
  // The feed is read on the event stream's first open, or after this long if it does not open.
  const FIRST_LOAD_FALLBACK_MS = 1500;
  // A message after the stream count goes away after this long.
  const NOTICE_MS = 10000;
  // A tap on the playing clip opens the stream once it has played this long (a tap at once is
  // taken as "play this one", as on every other cell).
  const OPEN_AFTER_MS = 1000;

  const strip = document.getElementById("strip");
  const emptyNote = document.getElementById("empty");
  const statusLine = document.getElementById("status");
  const tokenForm = document.getElementById("token-form");
  const tokenInput = document.getElementById("token-input");
  const tokenClear = document.getElementById("token-clear");

  const cells = new Map(); // streamId -> cell (see createCell)
  let playing = null; // { cell, video, version, watchdog } of the one clip that plays
  let token = takeToken();
  let loaded = false; // a feed answer was applied at least once
  let syncing = false; // a feed read is in flight: events wait in `buffered`
  let syncAgain = false; // something asked for a feed read while one was in flight
  let buffered = [];
  let events = null;
  let reconnectDelay = 1000;
  let retryTimer = 0;
  let lastErrorSync = 0;
  let notice = ""; // a passing message shown after the stream count
  let noticeTimer = 0;
  let trouble = false; // the notice is about the connection: a good feed read clears it

  // ---- Token ---------------------------------------------------------------------------------

  // #token=... wins over the stored token; it is removed from the address bar (and so from the
  // history and bookmarks) at once.
  function takeToken() {
    const fromAddress = tokenInAddress();
    if (fromAddress !== null) {
      storeToken(fromAddress);
      return fromAddress;
    }
    try {
      return sessionStorage.getItem(TOKEN_KEY) || "";
    } catch (error) {
      return ""; // storage refused (privacy mode): the page works anonymously
    }
  }

  // The token in #token=..., removed from the address; null when there is none.
  function tokenInAddress() {
    const value = new URLSearchParams(location.hash.replace(/^#/, "")).get("token");
    if (value === null) return null;
    history.replaceState(history.state, "", location.pathname + location.search);
    return value.trim();
  }

  function storeToken(value) {
    try {
      if (value) sessionStorage.setItem(TOKEN_KEY, value);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch (error) {
      // Not kept across reloads; this page still uses it.
    }
  }

  function setToken(value) {
    token = value;
    storeToken(value);
    renderTokenForm();
    cells.forEach(renderLike);
  }

  function renderTokenForm() {
    tokenInput.value = "";
    tokenInput.placeholder = token ? "Token in use" : "Paste a viewer token to like";
    tokenClear.hidden = !token;
  }

  function headers() {
    const fields = { Accept: "application/json" };
    if (token) fields.Authorization = "Bearer " + token;
    return fields;
  }

  // A 401 means the token expired or is not accepted here: go on anonymously.
  function dropToken() {
    setToken("");
    say("Your token was refused; watching without it");
  }

  function tokenRefused() {
    if (!token) return;
    dropToken();
    sync(); // the feed without this viewer's flags
  }

  // ---- Status line ---------------------------------------------------------------------------

  function say(message, aboutConnection) {
    notice = message;
    trouble = Boolean(message && aboutConnection);
    clearTimeout(noticeTimer);
    if (message) noticeTimer = setTimeout(() => say(""), NOTICE_MS);
    renderStatus();
  }

  function renderStatus() {
    let text;
    if (!loaded) text = "Loading live streams...";
    else if (cells.size === 0) text = "No live streams right now";
    else text = cells.size + (cells.size === 1 ? " live stream" : " live streams");
    if (notice) text += ". " + notice;
    // Writing the same text again would make screen readers repeat it.
    if (statusLine.textContent !== text) statusLine.textContent = text;
    emptyNote.hidden = !loaded || cells.size > 0;
  }

  // ---- Cells ---------------------------------------------------------------------------------

  function createCell(id) {
    const el = document.createElement("li");
    el.className = "cell";
    el.dataset.streamId = id;

    // The whole picture is one native button, so Enter and Space play it and no interactive
    // element sits inside another (the like button is its sibling).
    const button = document.createElement("button");
    button.type = "button";
    button.className = "play";
    button.setAttribute("aria-label", "Play stream " + id);

    const img = document.createElement("img");
    img.className = "thumb";
    img.alt = "";
    img.decoding = "async";
    img.draggable = false;
    button.append(img);

    const badge = document.createElement("span");
    badge.className = "badge";
    badge.setAttribute("aria-hidden", "true");
    badge.textContent = "LIVE";

    const like = document.createElement("button");
    like.type = "button";
    like.className = "like";
    const count = document.createElement("span");
    count.className = "count";
    like.append(count);

    const share = document.createElement("button");
    share.type = "button";
    share.className = "copy-link";  // not "share": the share page's body has that class
    share.textContent = "Copy link";
    share.setAttribute("aria-label", "Copy the link to stream " + id);

    el.append(button, badge, like, share);
    const cell = {
      id, el, button, img, like, count, share, item: null, version: "", likes: "0", liked: false, seen: false,
      liking: false, reportedPlay: "",
    };
    button.addEventListener("click", () => tapped(cell));
    like.addEventListener("click", () => toggleLike(cell));
    share.addEventListener("click", () => copyLink(cell));
    return cell;
  }

  // Applies a feed item to its cell, creating the cell if needed (not yet placed in the strip).
  // `personal`: the item comes from the feed read with this page's token, so liked and seen are
  // this viewer's; event items are the same for everyone and leave them alone.
  function upsert(item, personal) {
    const id = String(item.streamId);
    let cell = cells.get(id);
    if (!cell) {
      cell = createCell(id);
      cells.set(id, cell);
    }
    const version = String(item.previewVersion || "0");
    // An older version than the one shown (a late or buffered event) changes only the count.
    if (!cell.item || compareVersions(version, cell.version) >= 0) {
      const newPicture = cell.version !== version || !cell.img.getAttribute("src") || brokenImage(cell.img);
      // A new preview version is unseen again (the feed read says so too; events do not).
      if (cell.version !== version) cell.seen = false;
      cell.item = item;
      cell.version = version;
      describe(cell);
      // The playing <video> keeps its source; the new clip URL is used when the cell plays next.
      if (newPicture) cell.img.src = item.thumbnailUrl;
    }
    if (personal) {
      cell.liked = item.liked === true;
      cell.seen = item.seen === true;
    }
    cell.likes = String(item.likes || "0");
    renderLike(cell);
    return cell;
  }

  // The cell's accessible name: the streamer's title and alt text when they gave them (a screen
  // reader announces what the clip shows), else the stream's number.
  function cellName(cell, verb) {
    const item = cell.item || {};
    const title = item.title || "stream " + cell.id;
    return verb + " " + title + (item.altText ? ": " + item.altText : "");
  }

  function describe(cell) {
    cell.button.setAttribute("aria-label", cellName(cell, cell.el.dataset.state === "playing" ? "Playing" : "Play"));
    cell.img.alt = cell.item && cell.item.altText ? cell.item.altText : "";
    cell.el.title = cell.item && cell.item.title ? cell.item.title : "";
  }

  function brokenImage(img) {
    return img.complete && img.naturalWidth === 0;
  }

  function renderLike(cell) {
    const n = cell.likes;
    cell.count.textContent = n;
    cell.like.disabled = !token;
    cell.like.setAttribute("aria-pressed", String(cell.liked));
    // The name keeps the visible count in it; the pressed state says whether this viewer likes it.
    cell.like.setAttribute("aria-label", "Like stream " + cell.id + " (" + n + (n === "1" ? " like)" : " likes)"));
    cell.like.title = token ? "" : "Paste a viewer token to like";
  }

  // int64 values arrive as decimal strings: compare them without losing digits.
  function compareVersions(a, b) {
    return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  }

  function cellOf(el) {
    return el ? cells.get(el.dataset.streamId) : undefined;
  }

  // The cell after `cell` in the strip, wrapping to the first; `cell` itself when it is alone.
  function nextCell(cell) {
    return cellOf(cell.el.nextElementSibling) || cellOf(strip.firstElementChild);
  }

  // Puts the cells in `order` into the strip without ever moving the playing cell: taking a
  // <video> out of the document, even for a moment, can pause it.
  function arrange(order) {
    const focused = document.activeElement;
    const anchor = playing ? order.indexOf(playing.cell) : -1;
    if (anchor < 0) {
      placeRun(order, strip.firstElementChild);
    } else {
      placeRun(order.slice(0, anchor), strip.firstElementChild);
      placeRun(order.slice(anchor + 1), playing.cell.el.nextElementSibling);
    }
    // Moving a focused element drops its focus; give it back.
    if (focused && focused !== document.activeElement && strip.contains(focused)) focused.focus({ preventScroll: true });
  }

  // Makes `run` follow in order from `cursor`, moving only the cells that are out of place.
  function placeRun(run, cursor) {
    for (const cell of run) {
      if (cell.el === cursor) cursor = cursor.nextElementSibling;
      else strip.insertBefore(cell.el, cursor);
    }
  }

  // Removes a cell; if it was playing, its successor plays. The cell leaves the layout before
  // anything is centred, since every cell after it moves.
  function removeCell(cell) {
    const wasPlaying = Boolean(playing && playing.cell === cell);
    const next = wasPlaying ? nextCell(cell) : null;
    if (wasPlaying) stop();
    cell.el.remove();
    cells.delete(cell.id);
    if (next && next !== cell) play(next);
    else if (playing) center(playing.cell, false);
  }

  // ---- Playback ------------------------------------------------------------------------------

  function play(cell) {
    stop();
    const video = document.createElement("video");
    video.className = "clip";
    // Muted and inline, so browsers let it start without a tap.
    video.muted = true;
    video.defaultMuted = true;
    video.playsInline = true;
    video.autoplay = true;
    video.preload = "auto";
    video.disablePictureInPicture = true;
    video.setAttribute("aria-hidden", "true");
    video.src = cell.item.movieUrl;
    const session = { cell, video, version: cell.version, watchdog: 0, startedAt: 0 };
    video.addEventListener("playing", () => {
      video.classList.add("visible");
      if (!session.startedAt) session.startedAt = performance.now();
      reportPlay(session);
    });
    video.addEventListener("timeupdate", () => watch(session));
    video.addEventListener("ended", () => ended(session));
    video.addEventListener("error", () => failed(session));
    cell.button.append(video);
    cell.el.dataset.state = "playing";
    cell.button.setAttribute("aria-label", cellName(cell, "Playing"));
    playing = session;
    watch(session);
    center(cell, false);
    const started = video.play();
    if (started) started.catch((error) => refused(session, error));
  }

  // A tap on a cell plays it; on the clip playing for a moment already, it opens the stream.
  function tapped(cell) {
    if (playing && playing.cell === cell && playing.startedAt && performance.now() - playing.startedAt >= OPEN_AFTER_MS) {
      openStream(cell);
    } else {
      play(cell);
    }
  }

  // Through the tracking link: the server counts the open, then sends the browser on.
  function openStream(cell) {
    const link = cell.item && cell.item.shareUrl;
    if (link) window.location.assign(link);
  }

  function stop() {
    if (!playing) return;
    const { cell, video } = playing;
    clearTimeout(playing.watchdog);
    playing = null;
    video.pause();
    video.remove();
    delete cell.el.dataset.state;
    cell.button.setAttribute("aria-label", cellName(cell, "Play"));
  }

  function ended(session) {
    if (playing !== session) return;
    markSeen(session);
    play(nextCell(session.cell));
  }

  function failed(session) {
    if (playing !== session) return;
    clearTimeout(session.watchdog);
    // A failing clip URL may have expired: fresh signed URLs come with the feed (at most twice a minute).
    if (Date.now() - lastErrorSync > 30000) {
      lastErrorSync = Date.now();
      sync();
    }
    session.watchdog = setTimeout(() => {
      if (playing === session) play(nextCell(session.cell));
    }, ERROR_SKIP_MS);
  }

  // Skips a clip that stopped making progress while it should be playing. A clip the browser
  // paused (tab hidden, strip scrolled out of view) is left to resume.
  function watch(session) {
    clearTimeout(session.watchdog);
    session.watchdog = setTimeout(() => {
      if (playing !== session) return;
      if (session.video.paused || document.hidden) watch(session);
      else play(nextCell(session.cell));
    }, STALL_MS);
  }

  function refused(session, error) {
    // AbortError: the clip was stopped before it started, nothing to do.
    if (playing === session && error && error.name === "NotAllowedError") {
      clearTimeout(session.watchdog);
      say("This browser does not start videos by itself: choose a preview to play it");
    }
  }

  function reducedMotion() {
    return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  // Scrolls the strip (only the strip, not the page) so the cell's centre is the strip's centre.
  function center(cell, instant) {
    const box = cell.el.getBoundingClientRect();
    const view = strip.getBoundingClientRect();
    const middle = view.left + strip.clientLeft + strip.clientWidth / 2;
    const left = strip.scrollLeft + box.left + box.width / 2 - middle;
    strip.scrollTo({ left, behavior: instant || reducedMotion() ? "auto" : "smooth" });
  }

  // ---- Likes and seen marks ------------------------------------------------------------------

  function streamPath(cell, action) {
    return "api/streams/" + encodeURIComponent(cell.id) + "/" + action;
  }

  async function toggleLike(cell) {
    if (!token || cell.liking) return;
    cell.liking = true;
    cell.like.setAttribute("aria-busy", "true");
    try {
      const answer = await fetch(streamPath(cell, "like"), { method: cell.liked ? "DELETE" : "POST", headers: headers() });
      if (answer.ok) {
        const body = await answer.json();
        cell.likes = String(body.likes);
        cell.liked = body.liked === true;
        renderLike(cell);
      } else if (answer.status === 401) {
        tokenRefused();
      } else if (answer.status === 404) {
        say("Stream " + cell.id + " has ended");
      } else if (answer.status === 429) {
        say("Too many likes at once; try again in a moment");
      } else {
        say("The like did not go through (" + answer.status + ")");
      }
    } catch (error) {
      say("The server cannot be reached; the like did not go through");
    } finally {
      cell.liking = false;
      cell.like.removeAttribute("aria-busy");
    }
  }

  // A clip played to its end is seen. The route marks the stream's current version, so nothing
  // is sent when a newer version arrived while the older one played.
  function markSeen(session) {
    const cell = session.cell;
    if (!token || cell.seen || cell.version !== session.version || !cells.has(cell.id)) return;
    cell.seen = true;
    fetch(streamPath(cell, "seen"), { method: "POST", headers: headers() })
      .then((answer) => {
        if (answer.status === 401) tokenRefused();
        else if (!answer.ok) cell.seen = false; // try again after its next play
      })
      .catch(() => {
        cell.seen = false;
      });
  }

  // A play started counts once per preview version and page (round robin replays it often).
  function reportPlay(session) {
    const cell = session.cell;
    if (!token || cell.reportedPlay === session.version || cell.version !== session.version) return;
    cell.reportedPlay = session.version;
    fetch(streamPath(cell, "play"), { method: "POST", headers: headers() })
      .then((answer) => {
        if (answer.status === 401) tokenRefused();
      })
      .catch(() => {});
  }

  async function copyLink(cell) {
    const link = cell.item && cell.item.shareUrl;
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      say("Link to stream " + cell.id + " copied");
    } catch (error) {
      say("Copy this link: " + link);
      return;
    }
    if (token) fetch(streamPath(cell, "share"), { method: "POST", headers: headers() }).catch(() => {});
  }

  // ---- Feed ----------------------------------------------------------------------------------

  // Reads the feed and rebuilds the strip from it. Events that arrive meanwhile are applied
  // afterwards (applying one twice changes nothing), so none is lost between the two.
  async function sync() {
    if (syncing) {
      syncAgain = true;
      return;
    }
    syncing = true;
    clearTimeout(retryTimer);
    try {
      do {
        syncAgain = false;
        const items = await readFeed();
        if (items) rebuild(items);
      } while (syncAgain);
    } finally {
      syncing = false;
      const waiting = buffered;
      buffered = [];
      waiting.forEach(apply);
    }
  }

  async function readFeed() {
    let answer;
    try {
      // no-cache: asked every time, with the ETag, so an unchanged feed costs a 304.
      answer = await fetch(FEED_URL, { headers: headers(), cache: "no-cache" });
    } catch (error) {
      retryLater("The server cannot be reached; trying again");
      return null;
    }
    if (answer.status === 401 && token) {
      dropToken();
      syncAgain = true;
      return null;
    }
    if (!answer.ok) {
      retryLater("The feed is unavailable (" + answer.status + "); trying again");
      return null;
    }
    try {
      const body = await answer.json();
      return Array.isArray(body.items) ? body.items : [];
    } catch (error) {
      retryLater("The feed could not be read; trying again");
      return null;
    }
  }

  function retryLater(message) {
    say(message, true);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(sync, 5000);
  }

  function rebuild(items) {
    const order = [];
    const present = new Set();
    for (const item of items) {
      const id = String(item.streamId);
      if (present.has(id)) continue;
      present.add(id);
      order.push(upsert(item, true));
    }
    // The clip that plays goes on if its stream is still live; else the next one still live plays.
    let next = null;
    if (playing && !present.has(playing.cell.id)) {
      next = followingIn(playing.cell, present);
      stop();
    }
    for (const cell of Array.from(cells.values())) {
      if (!present.has(cell.id)) removeCell(cell);
    }
    arrange(order);
    loaded = true;
    if (trouble) say("");
    else renderStatus();
    if (!playing && order.length > 0) play(next || order[0]);
    else if (playing) center(playing.cell, false); // cells may have moved around it
  }

  // The first cell after `cell` (in strip order, wrapping) whose stream is in `present`.
  function followingIn(cell, present) {
    for (let el = cell.el.nextElementSibling; el; el = el.nextElementSibling) {
      if (present.has(el.dataset.streamId)) return cellOf(el);
    }
    for (let el = strip.firstElementChild; el && el !== cell.el; el = el.nextElementSibling) {
      if (present.has(el.dataset.streamId)) return cellOf(el);
    }
    return null;
  }

  // ---- Live events ---------------------------------------------------------------------------

  function connect() {
    events = new EventSource(EVENTS_URL);
    for (const type of ["preview", "removed", "likes", "reset"]) {
      events.addEventListener(type, (event) => receive(type, event.data));
    }
    events.addEventListener("open", opened);
    events.addEventListener("error", broken);
  }

  function receive(type, data) {
    let payload;
    try {
      payload = JSON.parse(data || "{}");
    } catch (error) {
      console.warn("viewer: ignored a " + type + " event that is not JSON");
      return;
    }
    const event = { type, payload };
    if (syncing || !loaded) buffered.push(event);
    else apply(event);
  }

  // Changes made while the stream was not connected were never sent: after every (re)connection
  // the feed is read again. The first open is the first load.
  function opened() {
    reconnectDelay = 1000;
    sync();
  }

  function broken() {
    say("Reconnecting to live updates...", true);
    // The browser retries by itself unless the server refused the stream (then it is CLOSED:
    // all its event streams are taken, 503 with Retry-After, which EventSource cannot read).
    // Then the page comes back after a growing delay, drawn between half and all of it so pages
    // refused together do not return together, and reads the feed meanwhile, so the strip
    // stays current without live events.
    if (events.readyState === EventSource.CLOSED) {
      events.close();
      setTimeout(connect, reconnectDelay * (0.5 + Math.random() / 2));
      reconnectDelay = Math.min(reconnectDelay * 2, 60000);
      sync();
    }
  }

  function apply(event) {
    const data = event.payload || {};
    if (event.type === "reset") sync();
    else if (data.streamId === undefined || data.streamId === null) return;
    else if (event.type === "preview") previewed(data);
    else if (event.type === "removed") removed(data);
    else if (event.type === "likes") liked(data);
  }

  // A new or updated preview: updated in place, or a new cell at the end (cells never move
  // under the viewer).
  function previewed(item) {
    const known = cells.has(String(item.streamId));
    const cell = upsert(item, false);
    if (!known) {
      strip.append(cell.el);
      renderStatus();
    }
    if (!playing) play(cell);
  }

  function removed(data) {
    const cell = cells.get(String(data.streamId));
    if (!cell) return;
    // A removal of an older version than the one shown is stale: the stream went live again.
    if (data.previewVersion !== undefined && compareVersions(cell.version, String(data.previewVersion)) > 0) return;
    removeCell(cell);
    renderStatus();
  }

  function liked(data) {
    const cell = cells.get(String(data.streamId));
    if (!cell || data.likes === undefined) return;
    cell.likes = String(data.likes);
    renderLike(cell);
  }

  // ---- Start ---------------------------------------------------------------------------------

  tokenForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = tokenInput.value.trim();
    if (!value) return;
    setToken(value);
    say("");
    sync(); // the feed with this viewer's likes and seen marks
  });
  // A #token= link opened in a tab that already shows the page changes only the fragment.
  window.addEventListener("hashchange", () => {
    const value = tokenInAddress();
    if (value === null) return;
    setToken(value);
    say("");
    sync();
  });
  tokenClear.addEventListener("click", () => {
    setToken("");
    say("");
    sync();
  });

  let resizeFrame = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(resizeFrame);
    resizeFrame = requestAnimationFrame(() => {
      if (playing) center(playing.cell, true);
    });
  });

  renderTokenForm();
  renderStatus();
  connect();
  setTimeout(() => {
    if (!loaded && !syncing) sync();
  }, FIRST_LOAD_FALLBACK_MS);
})();
