"""Purpose-bound sealed tokens: ``requestState``, cursors, session ids.

A :class:`Sealer` turns a JSON value into a compact URL-safe string and back. The string is
signed (HMAC-SHA256 through itsdangerous), timestamped, salted with a *purpose* so a token made
for one use never verifies for another, and prefixed with ``v1.`` so the format can change.
By default tokens are signed, not encrypted: anyone holding one can read its payload, so
never put secrets in one (``encrypt=True`` seals them unreadable: AES-256-GCM, a ``v2.``
token). To bind a token to a call, put :func:`digest` of (tool, arguments, principal) in the
payload and compare it on the way back.

A sealer may carry an *audience* (the Suite gives its server name, or its ``audience=``): its
tokens hold it and only a sealer of the same audience opens them, so two servers sharing a key
never redeem each other's tokens. Only the canonical encoding of a token is accepted. Several
keys can be configured for rotation: the first one signs and encrypts, all of them verify and
decrypt.

One concept per module: ``tokens`` (errors, limits, prefixes, key and form checks),
``signed`` (the ``v1.`` format), ``encrypted`` (the ``v2.`` format), ``sealer`` (the
:class:`Sealer`), ``binding`` (:func:`digest`); this face exports what their ``__all__`` name.
The package imports nothing from the rest of genmcp.
"""

from __future__ import annotations

from genmcp.sealing import binding, sealer, tokens
from genmcp.sealing.binding import *  # noqa: F403 (the face is its modules' __all__)
from genmcp.sealing.sealer import *  # noqa: F403
from genmcp.sealing.tokens import *  # noqa: F403

__all__ = [*tokens.__all__, *sealer.__all__, *binding.__all__]
"""The public names of ``tokens``, ``sealer`` and ``binding``, each declared once, there."""
