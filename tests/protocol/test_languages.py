"""protocol.languages: SEP-2792's (Draft) pure parts, value by value.

The wire (both eras, lists gzipped per language, off by default) is
tests/scenarios/test_languages.py.
"""

from __future__ import annotations

import pytest

from genmcp.errors import MCPError
from genmcp.protocol.languages import (
    CONTENT_LANGUAGE_META,
    MAX_RANGES,
    Languages,
    accept_language,
    accepted_languages,
    as_languages,
    content_language_of,
    lookup,
    mirrors,
    with_content_language,
)


def test_accept_language_orders_by_weight_then_position() -> None:
    assert accept_language("en-US,en;q=0.9,fr;q=0.5") == ("en-US", "en", "fr")
    assert accept_language("fr;q=0.5, de , en;Q=0.8") == ("de", "en", "fr")
    assert accept_language("da, *;q=0.1, en-gb;q=0.8") == ("da", "en-gb", "*")
    assert accept_language("fr;q=0, en") == ("en",)  # q=0: "not acceptable"
    assert accept_language("en,,  ,fr") == ("en", "fr")  # empty elements are ignored
    assert accept_language("zh-Hant-CN-x-private1") == ("zh-Hant-CN-x-private1",)


@pytest.mark.parametrize(
    "value",
    [None, 3, "", " , ", "fr;q=2", "fr;q=0.1234", "fr;x=1", "fr_FR", "français", "en-",
     "-en", "abcdefghi", "en;q=", "a" * 1025, ",".join(["en"] * (MAX_RANGES + 1)),
     "fr;q=0"],
)  # fmt: skip
def test_a_value_outside_the_grammar_is_none(value: object) -> None:
    assert accept_language(value) is None
    assert accepted_languages({"io.modelcontextprotocol/acceptLanguage": value}) == ()


def test_lookup_truncates_as_rfc_4647_says() -> None:
    available = ["en", "fr-CA", "zh-Hant", "de-DE"]
    assert lookup(["fr-ca"], available) == "fr-CA"  # case-insensitive, spelled as offered
    assert lookup(["zh-Hant-CN-x-private1-private2"], available) == "zh-Hant"
    assert lookup(["fr"], available) is None  # lookup never widens a range to a longer tag
    assert lookup(["de-DE-x-a", "en"], available) == "de-DE"  # never ends on a singleton
    assert lookup(["it", "*"], available) is None  # the wildcard: the caller's default
    assert lookup([], available) is None


def test_the_header_mirror_is_exact_after_trimming() -> None:
    mirrors([], "fr")  # a CDN stripped the header
    mirrors(["fr"], None)  # a bare header is no preference: nothing to compare
    mirrors(["  fr-CA,fr;q=0.9\t"], "fr-CA,fr;q=0.9 ")
    mirrors(["fr-CA", "fr;q=0.9"], "fr-CA, fr;q=0.9")  # repeated lines combined (§5.2)
    for header, meta in (("FR", "fr"), ("fr,en", "fr, en"), ("en,fr", "fr,en"),
                         ("fr;q=0.90", "fr;q=0.9")):  # fmt: skip
        with pytest.raises(MCPError) as caught:
            mirrors([header], meta)
        assert caught.value.code == -32020 and caught.value.reason == "language_mismatch"


def test_content_language_goes_in_a_copy_of_the_answer() -> None:
    result = {"content": [], "_meta": {"x": 1}}
    response = {"jsonrpc": "2.0", "id": 1, "result": result}
    stamped = with_content_language(response, "fr")
    assert stamped["result"]["_meta"] == {"x": 1, CONTENT_LANGUAGE_META: "fr"}
    assert result == {"content": [], "_meta": {"x": 1}}  # the tool's object is untouched
    assert content_language_of(stamped) == "fr" and content_language_of(response) is None
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "invalides"}}
    localized = with_content_language(error, "fr-CA")
    assert localized["error"]["data"] == {"_meta": {CONTENT_LANGUAGE_META: "fr-CA"}}
    assert content_language_of(localized) == "fr-CA"
    opaque = {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m", "data": [1]}}
    assert with_content_language(opaque, "fr") is opaque  # no object to carry _meta


def test_languages_the_switch() -> None:
    languages = Languages(["en", "fr"], titles={"fr": {"add": "Additionner"}})
    assert languages.default == "en" and languages.available == ("en", "fr")
    assert languages.negotiate(("fr-BE", "en")) == "fr"
    assert languages.negotiate(("de",)) == "en"  # no match: the default, never an error
    assert languages.negotiate(()) is None and Languages().negotiate(("fr",)) is None
    assert languages.title("fr", "add") == "Additionner"
    assert languages.title("en", "add") is None and languages.title(None, "add") is None
    assert as_languages(None) is None and as_languages(False) is None
    assert as_languages(True) == Languages() and as_languages(languages) is languages
    with pytest.raises(TypeError, match="sep2792"):
        as_languages("fr")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="list"):
        Languages("en")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="de"):
        Languages(["en"], titles={"de": {}})
    with pytest.raises(ValueError, match="en_US"):
        Languages(["en_US"])
