"""Bearer-token access for `guide serve --transport http`, from the `auth_*` settings (`GUIDE_AUTH_*` variables).

Either static tokens for a small team (`GUIDE_AUTH_TOKENS=name:token,name:token`, each name
is the principal) or JWTs for real deployments, checked against `GUIDE_AUTH_ISSUER` and
`GUIDE_AUTH_AUDIENCE` and verified with exactly one source of keys: `GUIDE_AUTH_JWKS_URI` or
`GUIDE_AUTH_PUBLIC_KEY` for the asymmetric algorithms, `GUIDE_AUTH_SECRET` or
`GUIDE_AUTH_SECRET_FILE` (whose content is the secret) for HS256/384/512.

Settings that could be misread stop the start with one line naming the variable to use: a
key variable given to the other family of algorithms, a secret shorter than its hash, a
secret variable whose value is a file name, a JWT setting without a JWT key (a misspelt
`GUIDE_AUTH_` name is refused where every setting is read, `guide.server.settings`). A JWT
is accepted only with an `exp` (unless `GUIDE_AUTH_ALLOW_NO_EXPIRY=1`) and a principal
claim (`sub`, or the claim `GUIDE_AUTH_PRINCIPAL_CLAIM` names): continuation state is bound
to the principal, so two tokens without one must never count as the same person.

The verifiers are FastMCP's own, extended through its public hooks: `load_access_token`
for the claims, `get_middleware` and `get_routes` for Guide's own 401 and `/register`
(`guide.server.challenge`; FastMCP's tells a client to "re-register", which means nothing
to a static-token or JWT user).
"""

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.auth.providers.jwt import JWTVerifier, StaticTokenVerifier
from starlette.middleware import Middleware

from guide.errors import GuideError
from guide.server.challenge import Unauthorized, register_route
from guide.server.settings import AUTH_PREFIX, DEFAULT_PRINCIPAL_CLAIM, SETTING, SETTINGS, Settings

TOKENS, JWKS_URI, PUBLIC_KEY, SECRET, SECRET_FILE, ISSUER, AUDIENCE, ALGORITHM, ALLOW_NO_EXPIRY, PRINCIPAL_CLAIM = (
    SETTING[f"auth_{name}"].variable
    for name in ("tokens", "jwks_uri", "public_key", "secret", "secret_file", "issuer", "audience", "algorithm", "allow_no_expiry", "principal_claim")
)
KEY_SOURCES = (JWKS_URI, PUBLIC_KEY, SECRET, SECRET_FILE)
JWT_SETTINGS = (ISSUER, AUDIENCE, ALGORITHM, ALLOW_NO_EXPIRY, PRINCIPAL_CLAIM)

# RFC 7518 3.2: an HMAC key at least as long as the hash's output.
SECRET_BYTES = {"HS256": 32, "HS384": 48, "HS512": 64}
ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519", "Ed448")
ALGORITHMS = (*SECRET_BYTES, *ASYMMETRIC)
SHARED_CLAIMS = ("iss", "aud", "exp", "nbf", "iat", "scope", "scp")  # the same for many people: never a principal
MIN_TOKEN_LENGTH = 32
TOKEN_HINT = "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
SECRET_HINT = "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(64))'"

log = logging.getLogger("guide")


def verifier(settings: Settings) -> TokenVerifier | None:
    """The token verifier the settings ask for, or None when access is open; GuideError (one line) for unsafe settings."""
    given = access_settings(settings)
    sources = [name for name in KEY_SOURCES if name in given]
    stray = next((name for name in JWT_SETTINGS if name in given), None)
    if TOKENS in given and sources:
        raise GuideError(f"{TOKENS} and {sources[0]} are both set; choose static tokens or JWTs")
    if TOKENS in given:
        if stray:
            raise GuideError(f"{stray} applies to JWTs, but {TOKENS} turns on static tokens; unset {stray}")
        return static_tokens(given[TOKENS])
    if sources:
        return jwt_verifier(given)
    if stray:
        raise GuideError(
            f"{stray} is set but no JWT key is: set {JWKS_URI} or {PUBLIC_KEY} (RS256 and the other asymmetric algorithms), "
            f"or {SECRET} or {SECRET_FILE} (HS256, HS384, HS512)"
        )
    return None


def access_settings(settings: Settings) -> dict[str, Any]:
    """The access settings that are set, by variable (the names every message uses)."""
    values = {setting.variable: getattr(settings, setting.name) for setting in SETTINGS if setting.variable.startswith(AUTH_PREFIX)}
    return {variable: value for variable, value in values.items() if value is not None}


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
    return StaticTokens(tokens=by_token)


def jwt_verifier(given: Mapping[str, Any]) -> JWTVerifier:
    """A JWT verifier checking signature, expiry, issuer, audience and principal, from the access settings that are set."""
    settings = {name: given.get(name, "") for name in (*KEY_SOURCES, ISSUER, AUDIENCE, ALGORITHM, PRINCIPAL_CLAIM)}
    sources = [name for name in KEY_SOURCES if settings[name]]
    if len(sources) > 1:
        raise GuideError(f"{sources[0]} and {sources[1]} are both set; give one source of signing keys")
    missing = [name for name in (ISSUER, AUDIENCE) if not settings[name]]
    if missing:
        # Without them a token the same identity provider issued for another service would be accepted.
        raise GuideError(f"JWT access needs {' and '.join(missing)} (the token's iss and aud claims)")
    if settings[JWKS_URI] and not settings[JWKS_URI].lower().startswith("https://"):
        # Keys fetched in the clear could be swapped on the way, and with them every token's signature.
        raise GuideError(f"{JWKS_URI}: {settings[JWKS_URI][:60]!r} is not an https:// address; the signing keys must come over https")
    algorithm = _algorithm(settings[ALGORITHM], symmetric=sources[0] in (SECRET, SECRET_FILE))
    key = _secret(settings, sources[0], algorithm) if algorithm in SECRET_BYTES else _public_key(settings, sources[0], algorithm)
    try:
        return JWTAccess(
            jwks_uri=settings[JWKS_URI] or None,
            public_key=key,
            issuer=settings[ISSUER],
            audience=settings[AUDIENCE],
            algorithm=algorithm,
            principal_claim=_principal_claim(settings[PRINCIPAL_CLAIM]),
            require_expiry=not given.get(ALLOW_NO_EXPIRY, False),
        )
    except ValueError as error:
        raise GuideError(f"JWT access: {error}") from None


def _algorithm(value: str, symmetric: bool) -> str:
    if not value:
        return "HS256" if symmetric else "RS256"
    if value not in ALGORITHMS:
        raise GuideError(f"{ALGORITHM}: {value[:40]!r} is not an algorithm Guide accepts; use one of {', '.join(ALGORITHMS)}")
    return value


def _secret(settings: Mapping[str, str], source: str, algorithm: str) -> bytes:
    """The shared secret of an HS* algorithm: the variable's value, or the content of the file it names."""
    if source not in (SECRET, SECRET_FILE):
        raise GuideError(f"{source} is for the asymmetric algorithms; {algorithm} checks tokens with a shared secret: set {SECRET} or {SECRET_FILE} instead")
    if source == SECRET:
        if _names_file(settings[SECRET]):
            raise GuideError(f"{SECRET} holds the name of a file, not a secret; to use the file's content, set {SECRET_FILE} to that name instead")
        secret = settings[SECRET].encode()
    else:
        secret = _file_secret(settings[SECRET_FILE])
    if secret.startswith(b"-----BEGIN"):
        raise GuideError(f"{source} holds a PEM key, not a shared secret; for a key set {PUBLIC_KEY} and {ALGORITHM} to its algorithm (RS256, ES256, ...)")
    if len(secret) < SECRET_BYTES[algorithm]:
        raise GuideError(f"{source}: an {algorithm} secret needs at least {SECRET_BYTES[algorithm]} bytes, this one has {len(secret)}; {SECRET_HINT}")
    return secret


def _public_key(settings: Mapping[str, str], source: str, algorithm: str) -> str | None:
    """The PEM key of an asymmetric algorithm, or None when the keys come from `GUIDE_AUTH_JWKS_URI`."""
    if source in (SECRET, SECRET_FILE):
        raise GuideError(
            f"{source} is for HS256, HS384 and HS512; {algorithm} checks tokens with a public key: "
            f"set {PUBLIC_KEY} or {JWKS_URI} instead (or {ALGORITHM}=HS256 to check them with this secret)"
        )
    return _key_text(settings[PUBLIC_KEY]) if source == PUBLIC_KEY else None


def _names_file(value: str) -> bool:
    try:
        return Path(value).expanduser().exists()
    except (OSError, ValueError):  # too long for a path, or a NUL in it: not a file name
        return False


def _file_secret(name: str) -> bytes:
    try:
        content = Path(name).expanduser().read_bytes()
    except OSError:
        raise GuideError(f"{SECRET_FILE}: {name} cannot be read") from None
    return content.rstrip(b"\r\n")  # the line break an editor or `echo` adds is not part of the secret


def _key_text(value: str) -> str:
    """The PEM text itself, or the contents of the file it names."""
    if value.startswith("-----BEGIN"):
        return value
    try:
        return Path(value).expanduser().read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        raise GuideError(f"{PUBLIC_KEY}: {value} is neither PEM text nor a readable PEM file") from None


def _principal_claim(value: str) -> str:
    claim = value or DEFAULT_PRINCIPAL_CLAIM
    if claim in SHARED_CLAIMS:
        raise GuideError(f"{PRINCIPAL_CLAIM}: {claim!r} is the same for many people; name a claim that identifies one person or agent, such as sub or email")
    return claim


class Challenge:
    """A verifier mixin: a request to the MCP endpoint without an accepted token gets Guide's own 401."""

    guarded_path: str | None = None
    missing_text = "this server needs a bearer token: send the header Authorization: Bearer <token>"
    refused_text = "this bearer token was refused"

    def get_routes(self, mcp_path: str | None = None) -> list:
        """FastMCP's routes for this verifier, and `/register` saying no client is registered; it also learns the endpoint the 401s guard."""
        self.guarded_path = mcp_path
        return [*super().get_routes(mcp_path), register_route(self)]

    def get_middleware(self) -> list:
        """FastMCP's authentication middleware, then Guide's answer to a request it did not authenticate."""
        return [*super().get_middleware(), Middleware(Unauthorized, verifier=self)]


class StaticTokens(Challenge, StaticTokenVerifier):
    """FastMCP's static-token verifier, answering a missing or unknown token in Guide's words."""

    missing_text = f"{Challenge.missing_text}, with the token your operator issued you ({TOKENS})"
    refused_text = f"{Challenge.refused_text}: it is not one of the tokens your operator issued ({TOKENS}); check it was copied whole, or ask them for yours"


class JWTAccess(Challenge, JWTVerifier):
    """FastMCP's JWT verifier that also requires `exp` (unless told otherwise) and a principal claim."""

    missing_text = f"{Challenge.missing_text}, with a JWT from your identity provider"

    def __init__(self, *, principal_claim: str, require_expiry: bool, **options) -> None:
        super().__init__(**options)
        self.principal_claim = principal_claim
        self.require_expiry = require_expiry
        expiry = "an exp in the future" if require_expiry else "no past exp"
        self.refused_text = (
            f"{Challenge.refused_text}: Guide accepts a JWT signed with its key, for its issuer and audience, "
            f"with {expiry} and a non-empty '{principal_claim}' claim; get a new token from your identity provider"
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        """FastMCP's checks, then `exp` and the principal claim; the principal becomes the token's subject."""
        access = await super().load_access_token(token)
        if access is None:
            return None
        claims = access.claims or {}
        if self.require_expiry and claims.get("exp") is None:  # FastMCP checks exp only when a token has one
            log.info("bearer token refused: it has no exp claim (%s=1 accepts tokens that never expire)", ALLOW_NO_EXPIRY)
            return None
        principal = claims.get(self.principal_claim)
        if isinstance(principal, bool) or not isinstance(principal, str | int) or principal == "":
            log.info("bearer token refused: it has no %s claim to name its principal (%s names another claim)", self.principal_claim, PRINCIPAL_CLAIM)
            return None
        return access.model_copy(update={"subject": str(principal)})
