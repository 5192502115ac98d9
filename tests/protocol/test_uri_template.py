"""protocol.uri_template: RFC 6570 level-1 templates, parsed, matched in reverse, expanded.

The first test moved here from test_resource.py.
"""

from __future__ import annotations

import pytest

from genmcp.protocol.uri_template import MAX_URI_CHARS, UriTemplate


def test_uri_templates_match_level_1_and_refuse_the_rest() -> None:
    template = UriTemplate.parse("test://template/{id}/data")
    assert template.variables == ("id",)
    assert template.match("test://template/42/data") == {"id": "42"}
    assert template.match("test://template/a%2Fb/data") == {"id": "a/b"}
    assert template.match("test://template/a/b/data") is None
    assert template.match("test://template//data") is None
    assert template.match("test://templateX42/data") is None
    assert template.expand({"id": "a/b c"}) == "test://template/a%2Fb%20c/data"
    dotted = UriTemplate.parse("x://{a.b}.{c}")
    assert dotted.match("x://1.2") == {"a.b": "1", "c": "2"}
    for bad in ["x://{+a}", "x://{a,b}", "x://{a*}", "x://{a:3}", "x://{a}{a}", "x://{a", "x://a}"]:
        with pytest.raises(ValueError):
            UriTemplate.parse(bad)


@pytest.mark.parametrize(
    ("template", "uri", "variables"),
    [
        ("file:///{path}", "file:///a%20b", {"path": "a b"}),
        ("db://{table}/{id}", "db://users/7", {"table": "users", "id": "7"}),
        ("db://{table}/{id}", "db://users/7/extra", None),
        ("db://{table}/{id}", "db://users/", None),  # a variable is never empty
        ("db://{id}", "db://7?x=1", None),  # nor holds ? or #
        ("db://{id}", "db://7#frag", None),
        ("x://a.b/{id}", "x://aXb/1", None),  # literals are literal, dots too
        ("x://static", "x://static", {}),
        ("x://{%41b}", "x://v", {"%41b": "v"}),  # a pct-encoded variable name
    ],
)
def test_match(template: str, uri: str, variables: dict[str, str] | None) -> None:
    assert UriTemplate.parse(template).match(uri) == variables


def test_match_refuses_what_is_no_uri_or_too_long() -> None:
    template = UriTemplate.parse("x://{id}")
    assert template.match(7) is None  # type: ignore[arg-type]
    assert template.match("x://" + "a" * (MAX_URI_CHARS - 4)) is not None
    assert template.match("x://" + "a" * (MAX_URI_CHARS - 3)) is None


def test_expand_round_trips_through_match() -> None:
    template = UriTemplate.parse("db://{table}/{id}")
    values = {"table": "a/b?c#d", "id": "é~._-%"}
    uri = template.expand(values)
    assert uri == "db://a%2Fb%3Fc%23d/%C3%A9~._-%25"
    assert template.match(uri) == values
    with pytest.raises(KeyError):
        template.expand({"table": "t"})


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("", "a URI template is a non-empty string"),
        ("x://{}", r"\{\} is not a level-1 expression"),
        ("x://{a b}", "is not a level-1 expression"),
        ("x://{.a}", "is not a level-1 expression"),
        ("x://{a}/{a}", "variable 'a' appears twice"),
        ("x://}{a}", "unbalanced brace"),
    ],
)
def test_parse_refuses_with_the_reason(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        UriTemplate.parse(template)


def test_templates_compare_by_text() -> None:
    assert UriTemplate.parse("x://{a}") == UriTemplate.parse("x://{a}")
    assert UriTemplate.parse("x://{a}") != UriTemplate.parse("x://{b}")
