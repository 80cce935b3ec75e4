#!/usr/bin/env python3
"""Presigned URLs from the official SDKs, with a frozen clock, for `streampreview presign`.

Prints one JSON document on stdout:
  {"sdks": {name: version}, "at": "2025-01-15T12:34:56Z",
   "cases": [{"id", "oracle", "args", "env", "url", "compare"}]}
where `args` and `env` are the `streampreview` command line and credential variables that
must print `url`. `compare` is "exact" (byte for byte) or "params" (same query parameters in
another order and the same signature; used only where botocore orders `response-*`
parameters by its service model).

GCS cases whose endpoint is written with the scheme's default port carry `oracle_endpoint`,
the same endpoint without that port: the oracle signs that spelling (see GCS_ENDPOINTS).

Oracles:
  botocore               boto3/botocore `generate_presigned_url` (AWS SigV4 query auth)
  google-cloud-storage   `Blob.generate_signed_url(version="v4")`, GOOG4-RSA-SHA256, with a
                         service-account key generated here (never any network)
  reference-goog4-hmac   GOOG4-HMAC-SHA256 has no SDK that signs offline: `goog4_hmac_url`
                         below is a reference implementation written from Google's published
                         "V4 signing process" text, not from StreamPreview's Swift code.

The matrix is built in (see `s3_cases` / `gcs_cases`); `--matrix FILE` reads a JSON list of
case dicts of the same shape instead.

Usage: sdk_urls.py --key-file PATH [--matrix FILE]
  --key-file  where to write the generated service-account JSON key (the Swift test passes
              the same path to the binary in STREAMPREVIEW_GCS_KEY_FILE)
"""
import argparse
import datetime
import hashlib
import hmac
import json
import sys
import unittest.mock
import urllib.parse
from importlib import metadata

AT = "2025-01-15T12:34:56Z"
FROZEN = datetime.datetime(2025, 1, 15, 12, 34, 56)

S3_ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
S3_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
S3_TOKEN = "FwoGZXIvYXdzE+tok/en=="
GCS_EMAIL = "signer@streampreview-test.iam.gserviceaccount.com"
GCS_HMAC_ID = "GOOG1EXAMPLEHMACACCESSID0123456789"
GCS_HMAC_SECRET = "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ"

KEYS = [
    "clips/simple.mp4",
    "with space/a b.mp4",
    "plus+sign.mp4",
    "tilde~name.mp4",
    "percent%41%.mp4",
    "amp&eq=x.mp4",
    "caf\u00e9-nfc.mp4",
    "cafe\u0301-nfd.mp4",
    "emoji-\U0001F600\U0001F3AC.mp4",
    "punct!$'()*,;:@[].mp4",
    "a/./b/../c",
    "/leading.mp4",
    "trailing/",
    "double//slash.mp4",
    "\u65e5\u672c\u8a9e/\u30d5\u30a1\u30a4\u30eb.mp4",
]
VARIANT_KEYS = ["clips/simple.mp4", "with space/caf\u00e9 + more~.mp4"]


# ---------------------------------------------------------------- S3 (botocore)

S3_ENDPOINTS = [
    # (id, region, endpoint, addressing, bucket)
    ("aws-us-east-1-auto", "us-east-1", None, None, "sp-bucket"),
    ("aws-eu-west-1-auto", "eu-west-1", None, None, "sp-bucket"),
    ("aws-us-west-2-virtual", "us-west-2", None, "virtual", "sp-bucket"),
    ("aws-us-west-2-path", "us-west-2", None, "path", "sp-bucket"),
    ("aws-us-east-1-path", "us-east-1", None, "path", "sp-bucket"),
    ("aws-us-west-2-dotted", "us-west-2", None, None, "sp.dotted.bucket"),
    ("aws-us-east-1-dotted-virtual", "us-east-1", None, "virtual", "sp.dotted.bucket"),
    ("r2-auto-path", "auto", "https://0123456789abcdef.r2.cloudflarestorage.com", None, "sp-bucket"),
    ("r2-auto-virtual", "auto", "https://0123456789abcdef.r2.cloudflarestorage.com", "virtual", "sp-bucket"),
    ("custom-ip", "us-east-1", "http://127.0.0.1:9000", None, "sp-bucket"),
    ("custom-ip-virtual", "us-east-1", "http://127.0.0.1:9000", "virtual", "sp-bucket"),
    ("custom-host-virtual", "eu-central-1", "http://minio.local:9000", "virtual", "sp-bucket"),
    # The scheme's default port written out: botocore signs host without it (the URL keeps it).
    ("custom-https-default-port", "us-east-1", "https://s3.example.com:443", None, "sp-bucket"),
    ("custom-http-default-port-virtual", "eu-central-1", "http://minio.local:80", "virtual", "sp-bucket"),
]

S3_VARIANTS = {
    # name: (method, headers, query)
    "get": ("GET", [], []),
    "put-typed-sized": ("PUT", [("Content-Type", "video/mp4"), ("Content-Length", "1048576")], []),
    # What `serve` signs for an S3 upload: type, exact length, write-once (S3 conditional write).
    "put-write-once": ("PUT", [("Content-Type", "video/mp4"), ("Content-Length", "1048576"),
                               ("If-None-Match", "*")], []),
    "put": ("PUT", [], []),
    "put-typed": ("PUT", [("Content-Type", "image/jpeg")], []),
    "head": ("HEAD", [], []),
    "delete": ("DELETE", [], []),
    "get-disposition": ("GET", [], [("response-content-disposition", 'attachment; filename="clip 1.mp4"')]),
    "get-two-response": ("GET", [], [("response-content-type", "video/mp4"),
                                     ("response-content-disposition", "inline")]),
}
S3_OPERATIONS = {"GET": "get_object", "PUT": "put_object", "HEAD": "head_object", "DELETE": "delete_object"}
S3_HEADER_PARAMS = {"content-type": ("ContentType", str), "content-length": ("ContentLength", int),
                    "if-none-match": ("IfNoneMatch", str)}
S3_QUERY_PARAMS = {"response-content-disposition": "ResponseContentDisposition",
                   "response-content-type": "ResponseContentType"}


def s3_cases():
    cases = []
    for endpoint_id, region, endpoint, addressing, bucket in S3_ENDPOINTS:
        # Key encoding does not depend on the port: default-port endpoints get the variants only.
        for key in KEYS if "default-port" not in endpoint_id else []:
            for variant in ("get", "put-typed-sized"):
                cases.append(s3_case(endpoint_id, region, endpoint, addressing, bucket, key, variant, False))
        for key in VARIANT_KEYS:
            for variant in S3_VARIANTS:
                cases.append(s3_case(endpoint_id, region, endpoint, addressing, bucket, key, variant, False))
        cases.append(s3_case(endpoint_id, region, endpoint, addressing, bucket, KEYS[1], "put-typed-sized", True))
    return cases


def s3_case(endpoint_id, region, endpoint, addressing, bucket, key, variant, token):
    method, headers, query = S3_VARIANTS[variant]
    return {"backend": "s3", "id": f"s3/{endpoint_id}/{variant}{'/token' if token else ''}/{key!r}",
            "region": region, "endpoint": endpoint, "addressing": addressing, "bucket": bucket,
            "key": key, "method": method, "headers": headers, "query": query, "expires": 900,
            "session_token": token}


_s3_clients = {}
_boto_session = None


def botocore_url(case):
    import boto3
    from botocore.config import Config

    config_key = (case["region"], case["endpoint"], case["addressing"], case["session_token"])
    if config_key not in _s3_clients:
        s3_config = {"addressing_style": case["addressing"]} if case["addressing"] else {}
        global _boto_session
        _boto_session = _boto_session or boto3.session.Session()
        _s3_clients[config_key] = _boto_session.client(
            "s3", region_name=case["region"], endpoint_url=case["endpoint"],
            aws_access_key_id=S3_ACCESS_KEY, aws_secret_access_key=S3_SECRET,
            aws_session_token=S3_TOKEN if case["session_token"] else None,
            config=Config(signature_version="s3v4", s3=s3_config))
    params = {"Bucket": case["bucket"], "Key": case["key"]}
    for name, value in case["headers"]:
        param, kind = S3_HEADER_PARAMS[name.lower()]
        params[param] = kind(value)
    for name, value in case["query"]:
        params[S3_QUERY_PARAMS[name]] = value
    with unittest.mock.patch("botocore.auth.get_current_datetime", lambda remove_tzinfo=True: FROZEN):
        return _s3_clients[config_key].generate_presigned_url(
            S3_OPERATIONS[case["method"]], Params=params, ExpiresIn=case["expires"])


# ---------------------------------------------------------------- GCS

GCS_ENDPOINTS = [
    # (id, endpoint given to presign, addressing, bucket)
    ("path", None, None, "sp-bucket"),
    ("virtual", None, "virtual", "sp-bucket"),
    ("cdn-host", "https://media.example.com", "bucket-host", "sp-bucket"),
    ("custom-ip", "http://127.0.0.1:4443", None, "sp-bucket"),
    # The scheme's default port written out. Clients leave it out of `Host` (curl, browsers) and
    # GCS verifies the `Host` that arrives, so the URL that works is the one for the endpoint
    # without the port: the oracle is asked for that spelling (`oracle_endpoint`). Given the
    # port, google-cloud-storage 3.x signs `host:storage.googleapis.com:443` verbatim (its
    # `urlparse(endpoint).netloc`), a signature no request can carry.
    ("path-default-port", "https://storage.googleapis.com:443", None, "sp-bucket"),
    ("virtual-default-port", "https://storage.googleapis.com:443", "virtual", "sp-bucket"),
    ("cdn-host-default-port", "https://media.example.com:443", "bucket-host", "sp-bucket"),
    ("custom-http-default-port", "http://127.0.0.1:80", None, "sp-bucket"),
]

GCS_VARIANTS = {
    "get": ("GET", [], []),
    "put-typed-ranged": ("PUT", [("Content-Type", "video/mp4"), ("x-goog-content-length-range", "0,1048576")], []),
    # What `serve` signs for a GCS upload: type, size range, write-once (generation precondition).
    "put-write-once": ("PUT", [("Content-Type", "video/mp4"), ("x-goog-content-length-range", "0,1048576"),
                               ("x-goog-if-generation-match", "0")], []),
    "put": ("PUT", [], []),
    "put-typed": ("PUT", [("Content-Type", "image/jpeg")], []),
    "head": ("HEAD", [], []),
    "delete": ("DELETE", [], []),
    "resumable-start": ("POST", [("x-goog-resumable", "start")], []),
    "get-disposition": ("GET", [], [("response-content-disposition", 'attachment; filename="clip 1.mp4"')]),
}


def gcs_cases():
    cases = []
    for signer in ("rsa", "hmac"):
        for endpoint_id, endpoint, addressing, bucket in GCS_ENDPOINTS:
            for key in KEYS if "default-port" not in endpoint_id else []:
                for variant in ("get", "put-typed-ranged"):
                    cases.append(gcs_case(signer, endpoint_id, endpoint, addressing, bucket, key, variant))
            for key in VARIANT_KEYS:
                for variant in GCS_VARIANTS:
                    cases.append(gcs_case(signer, endpoint_id, endpoint, addressing, bucket, key, variant))
    return cases


def gcs_case(signer, endpoint_id, endpoint, addressing, bucket, key, variant):
    method, headers, query = GCS_VARIANTS[variant]
    return {"backend": "gcs", "signer": signer, "id": f"gcs-{signer}/{endpoint_id}/{variant}/{key!r}",
            "endpoint": endpoint, "oracle_endpoint": without_default_port(endpoint), "addressing": addressing,
            "bucket": bucket, "key": key, "method": method, "headers": headers, "query": query, "expires": 900}


def without_default_port(endpoint):
    """`endpoint` with the scheme's default port (443 for https, 80 for http) left out, as
    clients leave it out of the `Host` header; None stays None."""
    if endpoint is None:
        return None
    split = urllib.parse.urlsplit(endpoint)
    default = {"https": 443, "http": 80}[split.scheme]
    if split.port != default:
        return endpoint
    netloc = split.netloc.rsplit(":", 1)[0]
    return urllib.parse.urlunsplit((split.scheme, netloc, split.path, split.query, split.fragment))


_gcs_client = None


def google_url(case, credentials):
    from google.cloud import storage
    from google.cloud.storage import _signing

    global _gcs_client
    if _gcs_client is None:
        _gcs_client = storage.Client(project="streampreview-test", credentials=credentials)
    blob = _gcs_client.bucket(case["bucket"]).blob(case["key"])
    kwargs = {}
    endpoint = case.get("oracle_endpoint", case["endpoint"])
    if case["addressing"] == "virtual":
        kwargs["virtual_hosted_style"] = True
        if endpoint:
            kwargs["api_access_endpoint"] = endpoint
    elif case["addressing"] == "bucket-host":
        kwargs["bucket_bound_hostname"] = endpoint
    elif endpoint:
        kwargs["api_access_endpoint"] = endpoint
    headers = dict(case["headers"])
    method = case["method"]
    if headers.get("x-goog-resumable") == "start":  # the SDK's spelling of a resumable start
        del headers["x-goog-resumable"]
        method = "RESUMABLE"
    content_type = headers.pop("Content-Type", None)
    frozen = FROZEN.replace(tzinfo=datetime.timezone.utc)
    with unittest.mock.patch.object(_signing, "_NOW", lambda tz=None: frozen):
        return blob.generate_signed_url(
            version="v4", expiration=datetime.timedelta(seconds=case["expires"]), method=method,
            content_type=content_type, headers=headers or None,
            query_parameters=dict(case["query"]) or None, credentials=credentials, **kwargs)


def goog4_hmac_url(case):
    """GOOG4-HMAC-SHA256 per Google's "V4 signing process" (cloud.google.com/storage/docs/
    authentication/signatures): canonical request, string-to-sign, HMAC key derivation."""
    base = case.get("oracle_endpoint", case["endpoint"]) or "https://storage.googleapis.com"
    split = urllib.parse.urlsplit(base)
    host = split.netloc
    # Canonical URI: the object path, percent-encoded except unreserved characters and "/".
    encoded_object = urllib.parse.quote(case["key"].encode("utf-8"), safe="/~")
    if case["addressing"] == "virtual":
        host = f"{case['bucket']}.{host}"
        path = "/" + encoded_object
    elif case["addressing"] == "bucket-host":
        path = "/" + encoded_object
    else:
        path = f"/{case['bucket']}/{encoded_object}"
    # Canonical headers: lower-case names, values trimmed with inner whitespace folded,
    # sorted by name; "host" always included.
    headers = {"host": host}
    for name, value in case["headers"]:
        headers[name.strip().lower()] = " ".join(value.split())
    names = sorted(headers)
    canonical_headers = "".join(f"{name}:{headers[name]}\n" for name in names)
    signed_headers = ";".join(names)
    timestamp = FROZEN.strftime("%Y%m%dT%H%M%SZ")
    datestamp = timestamp[:8]
    scope = f"{datestamp}/auto/storage/goog4_request"
    params = list(case["query"]) + [
        ("X-Goog-Algorithm", "GOOG4-HMAC-SHA256"),
        ("X-Goog-Credential", f"{GCS_HMAC_ID}/{scope}"),
        ("X-Goog-Date", timestamp),
        ("X-Goog-Expires", str(case["expires"])),
        ("X-Goog-SignedHeaders", signed_headers),
    ]
    # Canonical query string: names and values percent-encoded, sorted by name.
    encoded = sorted((urllib.parse.quote(n, safe="~"), urllib.parse.quote(v, safe="~")) for n, v in params)
    canonical_query = "&".join(f"{n}={v}" for n, v in encoded)
    canonical_request = "\n".join(
        [case["method"], path, canonical_query, canonical_headers, signed_headers, "UNSIGNED-PAYLOAD"])
    string_to_sign = "\n".join([
        "GOOG4-HMAC-SHA256", timestamp, scope,
        hashlib.sha256(canonical_request.encode("utf-8")).hexdigest()])
    key = ("GOOG4" + GCS_HMAC_SECRET).encode("utf-8")
    for part in (datestamp, "auto", "storage", "goog4_request"):
        key = hmac.new(key, part.encode("utf-8"), hashlib.sha256).digest()
    signature = hmac.new(key, string_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"{split.scheme}://{host}{path}?{canonical_query}&X-Goog-Signature={signature}"


# ---------------------------------------------------------------- driver

def write_service_account(path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode("ascii")
    info = {"type": "service_account", "project_id": "streampreview-test", "private_key_id": "0" * 40,
            "private_key": pem, "client_email": GCS_EMAIL, "client_id": "1",
            "token_uri": "https://oauth2.googleapis.com/token"}
    with open(path, "w") as handle:
        json.dump(info, handle)
    return info


def cli(case, key_file):
    args = ["presign", "--storage", case["backend"], "--bucket", case["bucket"], "--key", case["key"],
            "--method", case["method"], "--expires", str(case["expires"]), "--at", AT]
    if case.get("region"):
        args += ["--region", case["region"]]
    if case.get("endpoint"):
        args += ["--endpoint", case["endpoint"]]
    if case.get("addressing"):
        args += ["--addressing", case["addressing"]]
    for name, value in case["headers"]:
        args += ["--header", f"{name}: {value}"]
    for name, value in case["query"]:
        args += ["--query", f"{name}={value}"]
    if case["backend"] == "s3":
        env = {"STREAMPREVIEW_S3_ACCESS_KEY_ID": S3_ACCESS_KEY, "STREAMPREVIEW_S3_SECRET_ACCESS_KEY": S3_SECRET}
        if case["session_token"]:
            env["STREAMPREVIEW_S3_SESSION_TOKEN"] = S3_TOKEN
    elif case["signer"] == "rsa":
        env = {"STREAMPREVIEW_GCS_KEY_FILE": key_file}
    else:
        args += ["--gcs-signer", "hmac"]
        env = {"STREAMPREVIEW_GCS_HMAC_ACCESS_ID": GCS_HMAC_ID, "STREAMPREVIEW_GCS_HMAC_SECRET": GCS_HMAC_SECRET}
    return args, env


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--key-file", required=True)
    parser.add_argument("--matrix")
    options = parser.parse_args()

    from google.oauth2 import service_account

    info = write_service_account(options.key_file)
    credentials = service_account.Credentials.from_service_account_info(info)
    if options.matrix:
        with open(options.matrix) as handle:
            matrix = json.load(handle)
    else:
        matrix = s3_cases() + gcs_cases()

    out = []
    for case in matrix:
        if case["backend"] == "s3":
            oracle, url = "botocore", botocore_url(case)
        elif case["signer"] == "rsa":
            oracle, url = "google-cloud-storage", google_url(case, credentials)
        else:
            oracle, url = "reference-goog4-hmac", goog4_hmac_url(case)
        args, env = cli(case, options.key_file)
        compare = "params" if case["backend"] == "s3" and len(case["query"]) > 1 else "exact"
        out.append({"id": case["id"], "oracle": oracle, "args": args, "env": env, "url": url,
                    "compare": compare})
    sdks = {name: metadata.version(name)
            for name in ("boto3", "botocore", "google-cloud-storage", "google-auth")}
    json.dump({"sdks": sdks, "at": AT, "cases": out}, sys.stdout, ensure_ascii=True)


if __name__ == "__main__":
    main()
