"""genmcp.behaviour: the class options every behaviour shares, and the ``complete`` arities.

Checked on the public behaviours (a Tool, a Prompt), as a user writes them.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import Prompt, Tool
from genmcp.behaviour import Behaviour, complete_takes_channel


class Base(Tool, name="base", description="the parent", meta={"team": "a"}):
    pass


class Refined(Base, description="the child"):
    pass


def test_options_merge_over_the_parents() -> None:
    parent, child = Base(), Refined()
    assert (parent.option("name"), parent.option("description")) == ("base", "the parent")
    assert (child.option("name"), child.option("description")) == ("base", "the child")
    assert child.option("_meta") == {"team": "a"}  # "_meta" reads the meta= option
    assert child.option("title", "none set") == "none set"
    assert Base._genmcp_options["description"] == "the parent"  # the child did not write it


def test_an_unknown_option_names_the_class_the_behaviour_and_the_known_ones() -> None:
    with pytest.raises(TypeError) as caught:

        class Typo(Tool, nmae="typo"):  # type: ignore[call-arg]
            pass

    message = str(caught.value)
    assert message.startswith("test_an_unknown_option")  # the qualname of the class
    assert "Typo: unknown Tool option(s) nmae; known options: " in message
    assert "name" in message.split("known options: ")[1].split(", ")


def test_every_item_is_visible_by_default() -> None:
    assert Base().visible(None, None) is True  # type: ignore[arg-type]
    assert issubclass(Tool, Behaviour) and issubclass(Prompt, Behaviour)


def test_no_part_of_an_item_is_hidden_by_default() -> None:
    assert tuple(Base().hidden_parts(None, None)) == ()  # type: ignore[arg-type]
    assert Refined.hidden_parts is Behaviour.hidden_parts  # what visibility tells overrides by


class Current(Prompt, name="current"):
    def complete(self, argument: Any, value: Any, context: Any, channel: Any, arg: Any) -> Any:
        return []


class Older(Prompt, name="older"):
    def complete(self, argument: Any, value: Any, context: Any, arg: Any) -> Any:
        return []


class Starred(Prompt, name="starred"):
    def complete(self, *args: Any) -> Any:
        return []


class Wrong(Prompt, name="wrong"):
    def complete(self, argument: Any, value: Any) -> Any:
        return []


def test_complete_takes_the_channel_in_the_current_signature_only() -> None:
    assert complete_takes_channel(Current()) is True
    assert complete_takes_channel(Older()) is False
    assert complete_takes_channel(Starred()) is True
    with pytest.raises(TypeError, match=r"Wrong\.complete takes 2 argument\(s\) after self"):
        complete_takes_channel(Wrong())
