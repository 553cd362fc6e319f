"""Bearer-token access for `guide serve --transport http`, configured by environment variables.

Either static tokens for a small team (`GUIDE_AUTH_TOKENS=name:token,name:token`, each name
is the principal) or a JWT verifier for real deployments (`GUIDE_AUTH_JWKS_URI` or
`GUIDE_AUTH_PUBLIC_KEY`, with `GUIDE_AUTH_ISSUER` and `GUIDE_AUTH_AUDIENCE`). Both are
FastMCP's own verifiers; Guide only reads the settings and refuses unsafe ones.
"""

from collections.abc import Mapping
from pathlib import Path

from fastmcp.server.auth import TokenVerifier
from fastmcp.server.auth.providers.jwt import JWTVerifier, StaticTokenVerifier

from guide.errors import GuideError

TOKENS = "GUIDE_AUTH_TOKENS"
JWKS_URI = "GUIDE_AUTH_JWKS_URI"
PUBLIC_KEY = "GUIDE_AUTH_PUBLIC_KEY"
ISSUER = "GUIDE_AUTH_ISSUER"
AUDIENCE = "GUIDE_AUTH_AUDIENCE"
ALGORITHM = "GUIDE_AUTH_ALGORITHM"
MIN_TOKEN_LENGTH = 32
TOKEN_HINT = "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"


def verifier(environ: Mapping[str, str]) -> TokenVerifier | None:
    """The token verifier the environment asks for, or None when access is open."""
    tokens = environ.get(TOKENS, "").strip()
    jwks_uri = environ.get(JWKS_URI, "").strip()
    public_key = environ.get(PUBLIC_KEY, "").strip()
    if tokens and (jwks_uri or public_key):
        raise GuideError(f"{TOKENS} and {JWKS_URI}/{PUBLIC_KEY} are both set; choose one way to check tokens")
    if tokens:
        return static_tokens(tokens)
    if jwks_uri or public_key:
        return jwt_verifier(environ, jwks_uri, public_key)
    return None


def static_tokens(text: str) -> StaticTokenVerifier:
    """A verifier for `name:token` pairs (comma-separated); the name is the principal."""
    by_token: dict[str, dict] = {}
    names: set[str] = set()
    for number, pair in enumerate((part.strip() for part in text.split(",")), start=1):
        name, colon, token = pair.partition(":")
        name, token = name.strip(), token.strip()
        if not colon or not name or not token:
            raise GuideError(f"{TOKENS}: entry {number} is not name:token")
        if len(token) < MIN_TOKEN_LENGTH:
            raise GuideError(f"{TOKENS}: the token of {name!r} is shorter than {MIN_TOKEN_LENGTH} characters; {TOKEN_HINT}")
        if name in names:
            raise GuideError(f"{TOKENS}: the name {name!r} appears twice; each person or agent gets one name")
        if token in by_token:
            raise GuideError(f"{TOKENS}: {name!r} has the same token as {by_token[token]['client_id']!r}; each name needs its own token")
        names.add(name)
        by_token[token] = {"client_id": name, "sub": name, "scopes": []}
    return StaticTokenVerifier(tokens=by_token)


def jwt_verifier(environ: Mapping[str, str], jwks_uri: str, public_key: str) -> JWTVerifier:
    """A JWT verifier checking signature, expiry, issuer and audience."""
    if jwks_uri and public_key:
        raise GuideError(f"{JWKS_URI} and {PUBLIC_KEY} are both set; give one source of signing keys")
    issuer = environ.get(ISSUER, "").strip()
    audience = environ.get(AUDIENCE, "").strip()
    missing = [name for name, value in ((ISSUER, issuer), (AUDIENCE, audience)) if not value]
    if missing:
        # Without them a token the same identity provider issued for another service would be accepted.
        raise GuideError(f"JWT access needs {' and '.join(missing)} (the token's iss and aud claims)")
    algorithm = environ.get(ALGORITHM, "").strip() or "RS256"
    if public_key and not algorithm.startswith("HS"):  # HS* algorithms take a shared secret, not a key
        public_key = _key_text(public_key)
    try:
        return JWTVerifier(jwks_uri=jwks_uri or None, public_key=public_key or None, issuer=issuer, audience=audience, algorithm=algorithm)
    except ValueError as error:
        raise GuideError(f"JWT access: {error}") from None


def _key_text(value: str) -> str:
    """The PEM text itself, or the contents of the file it names."""
    if value.startswith("-----BEGIN"):
        return value
    try:
        return Path(value).expanduser().read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        raise GuideError(f"{PUBLIC_KEY}: {value} is neither PEM text nor a readable PEM file") from None
