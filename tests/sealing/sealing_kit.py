"""What the tests of genmcp.sealing share: keys, a clock for itsdangerous, the refusal reason."""

from __future__ import annotations

import time
from typing import Any

import pytest
from itsdangerous import TimestampSigner

from genmcp.sealing import Sealer, SealError

KEY_A = "a" * 40
KEY_B = "b" * 40
KEY_C = b"\x00" * 32
ENV = "GENMCP_SECRET_KEY"


def at(monkeypatch: pytest.MonkeyPatch, offset_s: int) -> None:
    """Make itsdangerous stamp new tokens ``offset_s`` seconds away from now."""
    stamp = int(time.time()) + offset_s
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: stamp)


def reason_of(sealer: Sealer, purpose: str, token: Any, **kwargs: Any) -> str:
    with pytest.raises(SealError) as info:
        sealer.unseal(purpose, token, **kwargs)
    assert str(info.value)
    return info.value.reason
