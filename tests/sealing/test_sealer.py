"""genmcp.sealing.sealer: the Sealer's keys, limits, audience and configuration."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import pytest

from genmcp.sealing import MAX_TOKEN_CHARS, Sealer, WeakKeyError
from tests.sealing.sealing_kit import ENV, KEY_A, KEY_B, KEY_C, reason_of


def test_key_list_errors() -> None:
    with pytest.raises(ValueError, match="at least one secret key"):
        Sealer([])
    with pytest.raises(TypeError, match="sequence of keys"):
        Sealer(KEY_A)
    with pytest.raises(TypeError, match="str or bytes"):
        Sealer([12345])  # type: ignore[list-item]


def test_repr_hides_keys() -> None:
    assert KEY_A not in repr(Sealer([KEY_A]))


@pytest.mark.parametrize(("payload", "exc"), [(float("nan"), ValueError), ({1, 2}, TypeError)])
def test_seal_rejects_non_json(payload: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc):
        Sealer([KEY_A]).seal("p", payload)


def test_seal_refuses_oversize_tokens() -> None:
    with pytest.raises(ValueError, match=f"over the limit of {MAX_TOKEN_CHARS}"):
        Sealer([KEY_A]).seal("p", secrets.token_hex(MAX_TOKEN_CHARS * 2))


def test_an_audience_envelope_opens_only_for_its_audience() -> None:
    one = Sealer([KEY_A], audience="one")
    token = one.seal("p", {"n": 1})
    assert one.unseal("p", token) == {"n": 1}
    assert reason_of(Sealer([KEY_A], audience="two"), "p", token) == "audience"
    assert Sealer([KEY_A]).unseal("p", token) == {"aud": "one", "v": {"n": 1}}  # signed: readable
    assert reason_of(one, "p", Sealer([KEY_A]).seal("p", {"n": 1})) == "audience"
    assert reason_of(one, "p", Sealer([KEY_A]).seal("p", {"aud": "one", "v": 1, "x": 2})) == (
        "audience"
    )
    with pytest.raises(TypeError, match="audience"):
        Sealer([KEY_A], audience=b"one")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- from_config


def test_from_config_explicit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, KEY_B)
    single = Sealer.from_config(KEY_A, max_age_s=5)
    assert not single.ephemeral
    assert single.max_age_s == 5
    assert Sealer([KEY_A]).unseal("p", single.seal("p", 1)) == 1  # explicit wins over env
    listed = Sealer.from_config([KEY_B, KEY_A])
    assert Sealer([KEY_B]).unseal("p", listed.seal("p", 2)) == 2
    assert Sealer.from_config(KEY_C).unseal("p", Sealer([KEY_C]).seal("p", 3)) == 3
    with pytest.raises(ValueError, match="at least one secret key"):
        Sealer.from_config([])
    with pytest.raises(WeakKeyError):
        Sealer.from_config("weak")


def test_from_config_env(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(ENV, KEY_A)
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        sealer = Sealer.from_config()
    assert not sealer.ephemeral
    assert caplog.records == []
    assert Sealer([KEY_A]).unseal("p", sealer.seal("p", 1)) == 1


def test_from_config_env_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    old_token = Sealer([KEY_A]).seal("p", "old")
    monkeypatch.setenv(ENV, f" {KEY_B} , {KEY_A},")
    sealer = Sealer.from_config()
    assert sealer.unseal("p", old_token) == "old"
    assert Sealer([KEY_B]).unseal("p", sealer.seal("p", "new")) == "new"


def test_from_config_custom_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("MY_KEYS", KEY_A)
    sealer = Sealer.from_config(env="MY_KEYS")
    assert not sealer.ephemeral
    assert Sealer([KEY_A]).unseal("p", sealer.seal("p", 1)) == 1


def test_from_config_env_weak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "changeme")
    with pytest.raises(WeakKeyError, match="8 bytes long"):
        Sealer.from_config()


@pytest.mark.parametrize("value", [None, "", " , "], ids=["unset", "empty", "blank-list"])
def test_from_config_ephemeral(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, value)
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        first = Sealer.from_config(max_age_s=7)
    assert first.ephemeral
    assert first.max_age_s == 7
    [record] = caplog.records
    assert record.name == "genmcp"
    assert record.levelno == logging.WARNING
    message = record.getMessage()
    assert "GENMCP_SECRET_KEY" in message
    assert "restart" in message
    assert "other processes" in message
    assert "secrets.token_urlsafe(48)" in message
    assert first.unseal("p", first.seal("p", 1)) == 1
    second = Sealer.from_config()
    assert reason_of(second, "p", first.seal("p", 1)) == "tampered"


def test_ephemeral_warning_names_custom_env(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("MY_KEYS", raising=False)
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        Sealer.from_config(env="MY_KEYS")
    assert "export MY_KEYS=" in caplog.records[0].getMessage()
