"""Token oracle for the identity-provider tests: PyJWT + cryptography mint what a provider
would issue. Reads one JSON request on stdin, prints one JSON answer on stdout.

Request:
  {"key_dir": DIR,                       # private keys kept here as PEM, made when missing
   "jwks": [KID, ...],                   # the keys published in the answer's "jwks" document
   "tokens": {NAME: {"kid": KID,         # signing key (its type decides RS256/ES256/EdDSA)
                     "alg": ALG,         # optional header alg override
                     "claims": {...},
                     "headers": {...},   # extra header members
                     "mode": "normal" | "none" | "hmac-with-public-key" | "es256-high-s"}}}
Key ids name their type by prefix: rsa*, ec*, ed*, rsa1024* (a weak RSA key).
ES256 signatures are given in their low-S form (S at most half the P-256 order), the form
the service holds as canonical, so tests know which form they have; "es256-high-s" gives the
same signature's other form, S replaced by n - S.

Answer: {"jwks": {"keys": [...]}, "tokens": {NAME: TOKEN}, "versions": {...}}
"""

import base64
import hashlib
import hmac
import json
import os
import sys

import cryptography
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm


def key_type(kid):
    if kid.startswith("rsa1024"):
        return "rsa1024"
    for prefix in ("rsa", "ec", "ed"):
        if kid.startswith(prefix):
            return prefix
    raise SystemExit(f"unknown key type for kid {kid!r}")


def private_key(key_dir, kid):
    path = os.path.join(key_dir, kid.replace("/", "_") + ".pem")
    if os.path.exists(path):
        with open(path, "rb") as f:
            return serialization.load_pem_private_key(f.read(), password=None)
    kind = key_type(kid)
    if kind == "rsa":
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    elif kind == "rsa1024":
        key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    elif kind == "ec":
        key = ec.generate_private_key(ec.SECP256R1())
    else:
        key = ed25519.Ed25519PrivateKey.generate()
    with open(path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return key


ALGORITHMS = {"rsa": "RS256", "rsa1024": "RS256", "ec": "ES256", "ed": "EdDSA"}


def public_jwk(key_dir, kid):
    key = private_key(key_dir, kid).public_key()
    kind = key_type(kid)
    if kind in ("rsa", "rsa1024"):
        jwk = RSAAlgorithm.to_jwk(key, as_dict=True)
    elif kind == "ec":
        jwk = ECAlgorithm.to_jwk(key, as_dict=True)
    else:
        jwk = OKPAlgorithm.to_jwk(key, as_dict=True)
    jwk.pop("key_ops", None)
    jwk.update({"kid": kid, "use": "sig", "alg": ALGORITHMS[kind]})
    return jwk


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# The order of the P-256 group (SEC 2, section 2.4.2).
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def with_s(token, high):
    """The ES256 token with its signature's S in the lower or the upper half of the order:
    cryptography signs with either, at random."""
    signing_input, _, signature = token.rpartition(".")
    raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
    r, s = raw[:32], int.from_bytes(raw[32:], "big")
    if (s > P256_ORDER // 2) != high:
        s = P256_ORDER - s
    return signing_input + "." + b64(r + s.to_bytes(32, "big"))


def mint(key_dir, spec):
    kid = spec["kid"]
    headers = dict(spec.get("headers", {}))
    headers.setdefault("kid", kid)
    mode = spec.get("mode", "normal")
    claims = spec["claims"]
    if mode == "none":
        return jwt.encode(claims, None, algorithm="none", headers=headers)
    if mode == "hmac-with-public-key":
        # Algorithm confusion: HS256 keyed with the provider's public key (PEM), which PyJWT
        # itself refuses to do, so the token is put together by hand.
        public_pem = private_key(key_dir, kid).public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        header = {"alg": "HS256", "typ": "JWT", **headers}
        signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
        mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
        return signing_input + "." + b64(mac)
    algorithm = spec.get("alg", ALGORITHMS[key_type(kid)])
    token = jwt.encode(claims, private_key(key_dir, kid), algorithm=algorithm, headers=headers)
    if algorithm == "ES256":
        token = with_s(token, high=mode == "es256-high-s")
    return token


def main():
    request = json.load(sys.stdin)
    key_dir = request["key_dir"]
    os.makedirs(key_dir, exist_ok=True)
    answer = {
        "jwks": {"keys": [public_jwk(key_dir, kid) for kid in request.get("jwks", [])]},
        "tokens": {name: mint(key_dir, spec) for name, spec in request.get("tokens", {}).items()},
        "versions": {"PyJWT": jwt.__version__, "cryptography": cryptography.__version__},
    }
    json.dump(answer, sys.stdout)


main()
