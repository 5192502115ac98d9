"""``DPoPNonces``: one nonce per window, taken in its window and the next, refused after;
the same key gives the same nonces (processes agree with no store); another key's nonces,
tampered and malformed ones are refused.
"""

from __future__ import annotations

import time

import pytest

from genmcp.auth import DPoPNonces


def test_a_nonce_is_taken_in_its_window_and_the_next_only() -> None:
    nonces = DPoPNonces("k" * 32, rotate_s=60)
    now = time.time()
    assert nonces.current() == nonces.at(now) or nonces.current() == nonces.at(now + 60)
    assert nonces.accepts(nonces.at(now)) and nonces.accepts(nonces.at(now - 60))
    assert not nonces.accepts(nonces.at(now - 120))  # stale
    assert not nonces.accepts(nonces.at(now + 120))  # not handed out yet
    assert nonces.at(now) != nonces.at(now - 60)  # rotated


def test_processes_with_one_key_agree_and_others_do_not() -> None:
    one, same, other = DPoPNonces(b"s" * 16), DPoPNonces(b"s" * 16), DPoPNonces(b"t" * 16)
    assert one.current() == same.current() and same.accepts(one.current())
    assert not other.accepts(one.current())
    window, mac = one.current().split(".")
    tampered = f"{window}.{'A' if mac[0] != 'A' else 'B'}{mac[1:]}"
    older = f"{int(window) - 1}.{mac}"
    for bad in (tampered, older, "", "x.y", None, 7, "1" * 80, f"-{window}.{mac}"):
        assert not one.accepts(bad), bad
    assert DPoPNonces().accepts(DPoPNonces().current()) is False  # random keys differ


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        DPoPNonces("short")
    with pytest.raises(ValueError, match="positive"):
        DPoPNonces(rotate_s=0)
