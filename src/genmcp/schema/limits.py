"""The limits on hostile tool arguments: module globals, read at each use (assign to change).

``genmcp.schema.limits.VALIDATION_BUDGET_S = 2.0`` gives every validation from then on two
seconds; the compiler (``schema.compile``), the hardened keywords (``schema.keywords``)
and the thread offload (``schema.offload``) read them here each time. Imports nothing.
"""

from __future__ import annotations

__all__ = [
    "BACKTRACKING_MAX_CHARS",
    "INLINE_MAX_CHARS",
    "INLINE_MAX_NODES",
    "INLINE_SLICE_S",
    "MAX_MESSAGE_CHARS",
    "MAX_REPORTED_ERRORS",
    "REGEX_FORMAT_MAX_CHARS",
    "VALIDATION_BUDGET_S",
]

MAX_REPORTED_ERRORS = 10
"""Validation stops after this many errors; they are what the client is told."""
MAX_MESSAGE_CHARS = 300
"""An error message longer than this (it quotes the argument) is cut to this length."""
BACKTRACKING_MAX_CHARS = 1000
"""Longest string checked against a pattern RE2 cannot run (backreferences, lookaround):
Python's backtracking ``re`` runs those, so a longer string fails validation unchecked."""
REGEX_FORMAT_MAX_CHARS = 1000
"""Longest string checked for ``format: regex`` (``re.compile`` takes ~1 s on 1 MB, and
raises RecursionError on deep groups); a longer one fails validation unchecked."""
VALIDATION_BUDGET_S = 0.5
"""Seconds one validation may take (jsonschema spends ~10 us per array item: a 4 MiB body
of 2M numbers would take ~20 s); past it the arguments are refused. Counted from the moment
validation is asked for, so waiting for a validation thread counts too."""
INLINE_SLICE_S = 0.005
"""Longest validation run on the event loop: past it, it starts again in a thread."""
INLINE_MAX_NODES = 1000
"""Arguments with more values than this (items, properties, nested) validate in a thread."""
INLINE_MAX_CHARS = 65536
"""Arguments whose strings and keys hold more characters than this validate in a thread."""
