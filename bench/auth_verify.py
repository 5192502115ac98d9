"""Cost of verifying one RS256 / ES256 JWT access token: PyJWT vs joserfc, same keys, same run.

    .venv/bin/python bench/auth_verify.py            # PyJWT only
    PYTHONPATH=/path/to/joserfc .venv/bin/python bench/auth_verify.py   # both

Signature check plus claims (exp, iss), key objects prepared once (as JWKSCache does).
Prints microseconds per verification (best of 5 runs of N).
"""

from __future__ import annotations

import time
import timeit

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

N = 2000
ISS = "https://issuer.example"
CLAIMS = {"iss": ISS, "sub": "alice", "aud": "https://mcp.example/mcp", "scope": "mcp:tools"}


def best_us(fn: object) -> float:
    return min(timeit.repeat(fn, number=N, repeat=5)) / N * 1e6  # type: ignore[arg-type]


def main() -> None:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    claims = {**CLAIMS, "exp": int(time.time()) + 3600}
    for alg, key in (("RS256", rsa_key), ("ES256", ec_key)):
        token = jwt.encode(claims, key, algorithm=alg)
        public = key.public_key()
        options = {"require": ["exp", "iss"], "verify_aud": False}
        pyjwt = best_us(
            lambda: jwt.decode(token, public, algorithms=[alg], issuer=ISS, options=options)
        )
        line = f"{alg}: PyJWT {pyjwt:.1f} us"
        try:
            from joserfc import jwt as jjwt
            from joserfc.jwk import ECKey, RSAKey

            jkey = (RSAKey if alg == "RS256" else ECKey).import_key(public)
            registry = jjwt.JWTClaimsRegistry(
                iss={"essential": True, "value": ISS}, exp={"essential": True}
            )

            def joserfc_verify() -> None:
                registry.validate(jjwt.decode(token, jkey, algorithms=[alg]).claims)

            line += f", joserfc {best_us(joserfc_verify):.1f} us"
        except ImportError:
            line += ", joserfc not installed"
        print(line)


if __name__ == "__main__":
    main()
