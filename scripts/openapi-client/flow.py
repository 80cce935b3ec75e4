"""Drives the API through a client openapi-python-client generated from the served document:
upload URLs, both PUTs, commit, the feed and a like, and three errors each decoded as the typed
model its response declares: 409 object_missing (a commit before the PUTs), 429 rate_limited (a
second like, with serve's write class at one request) and 422 rejected_by_hook (a commit the
loopback hook refuses). Each step prints one line; the first that goes wrong exits 1.

Usage: flow.py CLIENT_PARENT_DIR BASE_URL STREAMER_TOKEN VIEWER_TOKEN CLIP THUMBNAIL
  CLIENT_PARENT_DIR holds the generated package, streampreview_client; the streamer owns streams
  2 (published) and 3 (refused by the hook).
"""

import importlib
import pkgutil
import sys
from pathlib import Path

import httpx

PUBLISHED, REFUSED = 2, 3


class FlowError(Exception):
    pass


def check(condition: bool, what: str, detail: object = "") -> None:
    if not condition:
        raise FlowError(f"{what}: {detail}")


def main() -> int:
    parent, base, streamer_token, viewer_token, clip_path, thumbnail_path = sys.argv[1:7]
    sys.path.insert(0, parent)
    # The generated package, from the directory the script generated it in.
    import streampreview_client.api
    from streampreview_client import AuthenticatedClient, models
    from streampreview_client.api.feed import feed, like
    from streampreview_client.api.upload import commit_preview, post_preview

    # Every generated module imports: a generator bug can leave one that does not.
    modules = [
        importlib.import_module(module.name)
        for module in pkgutil.walk_packages(streampreview_client.api.__path__, "streampreview_client.api.")
    ]
    print(f"flow: the generated client's {len(modules)} API modules import")

    clip = Path(clip_path).read_bytes()
    thumbnail = Path(thumbnail_path).read_bytes()
    streamer = AuthenticatedClient(base_url=base, token=streamer_token)
    viewer = AuthenticatedClient(base_url=base, token=viewer_token)

    def upload_urls(stream_id: int):
        request = models.StreamPreviewPostRequest(
            stream_id=stream_id, movie_bytes=len(clip), thumbnail_bytes=len(thumbnail)
        )
        answer = post_preview.sync_detailed(client=streamer, body=request)
        check(answer.status_code == 200, f"upload URLs of stream {stream_id}", answer.content)
        check(isinstance(answer.parsed, models.StreamPreviewPostResponse), "upload URLs model", answer.parsed)
        print(f"flow: upload URLs of stream {stream_id}: upload {answer.parsed.upload_id}")
        return answer.parsed

    def put(url: str, headers, body: bytes) -> httpx.Response:
        # The signed URLs are the local store's /objects/ routes, outside the document: plain HTTP.
        return httpx.put(url, content=body, headers=dict(headers.additional_properties), timeout=30)

    def put_both(issued) -> None:
        for what, url, headers, body in (
            ("clip", issued.movie_body_url, issued.movie_headers, clip),
            ("thumbnail", issued.movie_thumbnail_body_url, issued.thumbnail_headers, thumbnail),
        ):
            answer = put(url, headers, body)
            check(answer.status_code == 200, f"PUT of the {what}", f"{answer.status_code} {answer.text}")
            print(f"flow: PUT {what} ({len(body)} bytes): 200")

    def commit(stream_id: int, issued):
        body = models.StreamPreviewCommitRequest(stream_id=stream_id, upload_id=issued.upload_id)
        return commit_preview.sync_detailed(client=streamer, body=body)

    # Stream 2: a commit before the PUTs is 409 object_missing, then the PUTs and the commit publish.
    issued = upload_urls(PUBLISHED)
    early = commit(PUBLISHED, issued)
    check(early.status_code == 409, "commit before the PUTs", early.content)
    check(isinstance(early.parsed, models.CommitConflictError), "409 model", early.parsed)
    check(early.parsed.code == models.CommitConflictErrorCode.OBJECT_MISSING, "409 code", early.parsed.code)
    print(
        f"flow: commit before the PUTs: 409 CommitConflictError {early.parsed.code} ({early.parsed.target})"
    )

    put_both(issued)
    again = put(issued.movie_body_url, issued.movie_headers, clip)
    check(again.status_code == 409 and again.json().get("code") == "object_exists", "second PUT", again.text)
    print("flow: second PUT of the clip: 409 object_exists")

    committed = commit(PUBLISHED, issued)
    check(committed.status_code == 200, "commit", committed.content)
    check(isinstance(committed.parsed, models.FeedItem), "commit model", committed.parsed)
    check(committed.parsed.stream_id == str(PUBLISHED), "committed stream", committed.parsed.stream_id)
    print(
        f"flow: commit: 200 FeedItem, stream {committed.parsed.stream_id} version {committed.parsed.preview_version}"
    )

    listed = feed.sync_detailed(client=viewer)
    check(listed.status_code == 200, "feed", listed.content)
    check(isinstance(listed.parsed, models.FeedResponse), "feed model", listed.parsed)
    streams = [item.stream_id for item in listed.parsed.items]
    check(streams == [str(PUBLISHED)], "feed items", streams)
    print(f"flow: feed: 200 FeedResponse, streams {streams}")

    liked = like.sync_detailed(PUBLISHED, client=viewer)
    check(liked.status_code == 200, "like", liked.content)
    check(isinstance(liked.parsed, models.LikeResponse), "like model", liked.parsed)
    check(liked.parsed.likes == "1" and liked.parsed.liked is True, "like answer", liked.parsed)
    print(f"flow: like: 200 LikeResponse, likes {liked.parsed.likes}")

    limited = like.sync_detailed(PUBLISHED, client=viewer)
    check(limited.status_code == 429, "second like (write class at 1 request)", limited.content)
    check(isinstance(limited.parsed, models.RateLimitedError), "429 model", limited.parsed)
    check(limited.parsed.code == models.RateLimitedErrorCode.RATE_LIMITED, "429 code", limited.parsed.code)
    check("Retry-After" in limited.headers, "429 Retry-After", dict(limited.headers))
    print(
        f"flow: second like: 429 RateLimitedError {limited.parsed.code}, Retry-After {limited.headers['Retry-After']}"
    )

    # Stream 3: the hook refuses its preview.
    issued = upload_urls(REFUSED)
    put_both(issued)
    refused = commit(REFUSED, issued)
    check(refused.status_code == 422, "commit the hook refuses", refused.content)
    check(isinstance(refused.parsed, models.CommitCheckError), "422 model", refused.parsed)
    check(
        refused.parsed.code == models.CommitCheckErrorCode.REJECTED_BY_HOOK, "422 code", refused.parsed.code
    )
    check(refused.parsed.message == "refused by the test hook", "422 message", refused.parsed.message)
    print(
        f"flow: commit the hook refuses: 422 CommitCheckError {refused.parsed.code} ({refused.parsed.message})"
    )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except FlowError as error:
        print(f"flow: FAILED: {error}", file=sys.stderr)
        sys.exit(1)
