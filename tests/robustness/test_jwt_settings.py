"""Issue 19, findings 2 to 4: JWT settings that cannot be misread, and the claims every accepted JWT has.

Each test reads the settings of an environment and gives them to `guide.server.auth.verifier`,
as `guide serve` does, and either expects the start to stop with one line naming the
variable to use, or hands the verifier real signed tokens (RS256 with a generated key
pair, HS256 with a secret) and checks which it accepts.
"""

import secrets
import time

import pytest
from fastmcp.server.auth.providers.jwt import RSAKeyPair
from joserfc import jwk, jwt

from guide.errors import GuideError
from guide.server import auth
from guide.server.settings import read_settings

ISSUER = "https://id.example.com"
AUDIENCE = "guide"
JWT = {"GUIDE_AUTH_ISSUER": ISSUER, "GUIDE_AUTH_AUDIENCE": AUDIENCE}
KEYS = RSAKeyPair.generate()
SECRET = secrets.token_urlsafe(48)


def verifier(environ: dict[str, str]):
    """The token verifier `guide serve` makes when started with `environ` (its settings read, then `guide.server.auth`)."""
    return auth.verifier(read_settings({}, environ))


def signed(key: str | bytes, algorithm: str = "RS256", *, expires: bool = True, **claims) -> str:
    """A JWT for this service (issuer and audience), signed with `key`, with `claims` (None drops a claim)."""
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "iat": now, **({"exp": now + 600} if expires else {}), **claims}
    body = {name: value for name, value in body.items() if value is not None}
    kind = "oct" if algorithm.startswith("HS") else "RSA"
    return jwt.encode({"alg": algorithm}, body, jwk.import_key(key, kind), algorithms=[algorithm])


def refused(environ: dict[str, str]) -> str:
    """The one line a start with `environ` stops with."""
    with pytest.raises(GuideError) as raised:
        verifier(environ)
    message = str(raised.value)
    assert "\n" not in message
    return message


def private_key() -> str:
    return KEYS.private_key.get_secret_value()


# Finding 2: with HS256, a GUIDE_AUTH_PUBLIC_KEY naming a file was used as the secret itself.


async def test_finding_2_a_file_name_is_never_the_secret(tmp_path):
    secret_file = tmp_path / "jwt-secret"
    secret_file.write_text(SECRET + "\n", encoding="ascii")
    path = str(secret_file)
    assert len(path) >= 32, "the path must be long enough to have passed as a secret"

    message = refused({"GUIDE_AUTH_PUBLIC_KEY": path, "GUIDE_AUTH_ALGORITHM": "HS256", **JWT})
    assert message.startswith("GUIDE_AUTH_PUBLIC_KEY is for the asymmetric algorithms; HS256 checks tokens with a shared secret")
    assert "set GUIDE_AUTH_SECRET or GUIDE_AUTH_SECRET_FILE instead" in message
    message = refused({"GUIDE_AUTH_SECRET": path, **JWT})
    assert message.startswith("GUIDE_AUTH_SECRET holds the name of a file, not a secret; to use the file's content, set GUIDE_AUTH_SECRET_FILE")

    found = verifier({"GUIDE_AUTH_SECRET_FILE": path, "GUIDE_AUTH_ALGORITHM": "HS256", **JWT})
    assert await found.verify_token(signed(path.encode(), "HS256", sub="mallory")) is None  # whoever knows the path forges nothing
    accepted = await found.verify_token(signed(SECRET.encode(), "HS256", sub="alice"))  # the file's content, without its line break
    assert accepted is not None and accepted.subject == "alice"
    assert refused({"GUIDE_AUTH_SECRET_FILE": str(tmp_path / "missing"), **JWT}) == f"GUIDE_AUTH_SECRET_FILE: {tmp_path / 'missing'} cannot be read"


async def test_finding_2_a_secret_given_in_the_environment_verifies_hs256_tokens():
    found = verifier({"GUIDE_AUTH_SECRET": SECRET, **JWT})  # a secret alone means HS256
    assert found.algorithm == "HS256"
    assert (await found.verify_token(signed(SECRET.encode(), "HS256", sub="alice"))).subject == "alice"
    assert await found.verify_token(signed(secrets.token_bytes(48), "HS256", sub="alice")) is None


# Finding 3: HS256 secrets had no minimum length.


@pytest.mark.parametrize(("algorithm", "needed"), [("HS256", 32), ("HS384", 48), ("HS512", 64)])
def test_finding_3_a_secret_shorter_than_its_hash_is_refused(tmp_path, algorithm, needed):
    short = "s" * (needed - 1)
    message = refused({"GUIDE_AUTH_SECRET": short, "GUIDE_AUTH_ALGORITHM": algorithm, **JWT})
    assert message.startswith(f"GUIDE_AUTH_SECRET: an {algorithm} secret needs at least {needed} bytes, this one has {needed - 1}; make one with")
    assert short not in message
    (tmp_path / "short").write_text(short, encoding="ascii")
    assert refused({"GUIDE_AUTH_SECRET_FILE": str(tmp_path / "short"), "GUIDE_AUTH_ALGORITHM": algorithm, **JWT}).startswith(
        f"GUIDE_AUTH_SECRET_FILE: an {algorithm} secret needs at least {needed} bytes"
    )
    assert verifier({"GUIDE_AUTH_SECRET": "s" * needed, "GUIDE_AUTH_ALGORITHM": algorithm, **JWT}).algorithm == algorithm
    assert refused({"GUIDE_AUTH_PUBLIC_KEY": "secret", "GUIDE_AUTH_ALGORITHM": algorithm, **JWT}).startswith("GUIDE_AUTH_PUBLIC_KEY is for the asymmetric algorithms")


# Findings 2 and 3: a key variable given to the other family of algorithms stops the start, both ways.


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, "GUIDE_AUTH_ALGORITHM": "HS256"}, "GUIDE_AUTH_PUBLIC_KEY is for the asymmetric algorithms; HS256 checks tokens with a shared secret"),
        ({"GUIDE_AUTH_JWKS_URI": "https://id.example.com/jwks", "GUIDE_AUTH_ALGORITHM": "HS512"}, "GUIDE_AUTH_JWKS_URI is for the asymmetric algorithms; HS512 checks tokens"),
        ({"GUIDE_AUTH_SECRET": SECRET, "GUIDE_AUTH_ALGORITHM": "RS256"}, "GUIDE_AUTH_SECRET is for HS256, HS384 and HS512; RS256 checks tokens with a public key: set GUIDE_AUTH_PUBLIC_KEY or GUIDE_AUTH_JWKS_URI"),
        ({"GUIDE_AUTH_SECRET_FILE": "/etc/guide/secret", "GUIDE_AUTH_ALGORITHM": "ES256"}, "GUIDE_AUTH_SECRET_FILE is for HS256, HS384 and HS512; ES256 checks tokens with a public key"),
        ({"GUIDE_AUTH_SECRET": KEYS.public_key}, "GUIDE_AUTH_SECRET holds a PEM key, not a shared secret; for a key set GUIDE_AUTH_PUBLIC_KEY"),
        ({"GUIDE_AUTH_SECRET": SECRET, "GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key}, "GUIDE_AUTH_PUBLIC_KEY and GUIDE_AUTH_SECRET are both set; give one source of signing keys"),
        ({"GUIDE_AUTH_SECRET": SECRET, "GUIDE_AUTH_ALGORITHM": "none"}, "GUIDE_AUTH_ALGORITHM: 'none' is not an algorithm Guide accepts; use one of HS256, HS384, HS512, RS256"),
        ({"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, "GUIDE_AUTH_ALGORITHM": "hs256"}, "GUIDE_AUTH_ALGORITHM: 'hs256' is not an algorithm Guide accepts"),
    ],
)
def test_findings_2_3_a_key_given_to_the_wrong_algorithm_names_the_variable_to_use(environ, message):
    assert refused({**environ, **JWT}).startswith(message)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"GUIDE_AUTH_TOKEN": "alice:" + SECRET}, "GUIDE_AUTH_TOKEN is not a Guide setting; did you mean GUIDE_AUTH_TOKENS?"),
        ({"GUIDE_AUTH_SECRETFILE": "/etc/guide/secret"}, "GUIDE_AUTH_SECRETFILE is not a Guide setting; did you mean GUIDE_AUTH_SECRET_FILE?"),
        ({"GUIDE_AUTH_ISSUER": ISSUER}, "GUIDE_AUTH_ISSUER is set but no JWT key is: set GUIDE_AUTH_JWKS_URI or GUIDE_AUTH_PUBLIC_KEY"),
        ({"GUIDE_AUTH_TOKENS": "alice:" + SECRET, "GUIDE_AUTH_ALGORITHM": "HS256"}, "GUIDE_AUTH_ALGORITHM applies to JWTs, but GUIDE_AUTH_TOKENS turns on static tokens"),
        ({"GUIDE_AUTH_TOKENS": "alice:" + SECRET, "GUIDE_AUTH_SECRET": SECRET}, "GUIDE_AUTH_TOKENS and GUIDE_AUTH_SECRET are both set; choose static tokens or JWTs"),
    ],
)
def test_a_setting_that_would_leave_the_server_open_or_be_ignored_stops_the_start(environ, message):
    assert refused(environ).startswith(message)
    assert SECRET not in refused(environ)


# Finding 4: a JWT without exp was accepted and never expired; tokens without sub shared one principal.


async def test_finding_4_a_token_without_exp_is_refused_unless_the_unsafe_setting_allows_it():
    strict = verifier({"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, **JWT})
    forever = signed(private_key(), sub="alice", expires=False)
    assert await strict.verify_token(forever) is None
    assert (await strict.verify_token(signed(private_key(), sub="alice"))).subject == "alice"
    assert await strict.verify_token(signed(private_key(), sub="alice", exp=int(time.time()) - 60)) is None

    relaxed = verifier({"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, "GUIDE_AUTH_ALLOW_NO_EXPIRY": "1", **JWT})
    assert (await relaxed.verify_token(forever)).subject == "alice"
    assert await relaxed.verify_token(signed(private_key(), sub="alice", exp=int(time.time()) - 60)) is None  # an exp given is still checked
    assert refused({"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, "GUIDE_AUTH_ALLOW_NO_EXPIRY": "sometimes", **JWT}) == "GUIDE_AUTH_ALLOW_NO_EXPIRY: 'sometimes' is not 1 or 0"


async def test_finding_4_a_token_without_sub_is_refused_unless_a_principal_claim_is_named():
    default = verifier({"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, **JWT})
    nobody = signed(private_key(), email="alice@example.com", client_id="agent-app")
    assert await default.verify_token(nobody) is None
    assert await default.verify_token(signed(private_key(), sub="")) is None

    by_email = verifier({"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, "GUIDE_AUTH_PRINCIPAL_CLAIM": "email", **JWT})
    accepted = await by_email.verify_token(nobody)
    assert (accepted.client_id, accepted.subject) == ("agent-app", "alice@example.com")
    assert await by_email.verify_token(signed(private_key(), sub="alice")) is None  # the named claim, not sub, is the principal
    assert refused({"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, "GUIDE_AUTH_PRINCIPAL_CLAIM": "aud", **JWT}).startswith(
        "GUIDE_AUTH_PRINCIPAL_CLAIM: 'aud' is the same for many people; name a claim that identifies one person or agent"
    )
