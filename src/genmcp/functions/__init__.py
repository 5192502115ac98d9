"""Function forms of the behaviours: ``@tool``, ``@prompt`` and ``@resource(uri)``.

Each decorator turns an annotated function into an ordinary subclass of ``Tool``, ``Prompt``
or ``ResourceRepo``, served, listed, validated and tested like one written by hand: the
class form stays the foundation (``functions.signature`` says how parameters are read).

Imports genmcp's behaviours; never a web framework.
"""

from genmcp.functions.prompts import prompt
from genmcp.functions.resources import resource
from genmcp.functions.tools import tool

__all__ = ["prompt", "resource", "tool"]
