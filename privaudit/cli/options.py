"""``NAME=VALUE`` options of the command line (``remediate --option``, ``audit --engine-option``)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import yaml

from privaudit.core.errors import PrivauditError
from privaudit.core.policy import expansion_problem

MAX_OPTION_CHARS = 10_000  # an option value is a name, a number or a short list


def parse_options(pairs: list[str], flag: str = "--option") -> dict[str, Any]:
    """``["k=5", "metric=NLLM", "columns=[age, sex]"]`` -> dict; values are read as YAML scalars/lists."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name.strip():
            raise PrivauditError(f"{flag} {pair!r}: expected NAME=VALUE")
        if len(raw) > MAX_OPTION_CHARS:
            raise PrivauditError(
                f"{flag} {name.strip()}: a value of {len(raw):,} characters; at most {MAX_OPTION_CHARS:,}"
            )
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        except RecursionError:
            raise PrivauditError(f"{flag} {name.strip()}: the value is nested too deeply") from None
        problem = expansion_problem(value)
        if problem:  # aliases that stand for a huge structure: refused before anything reads it
            raise PrivauditError(f"{flag} {name.strip()}: {problem}")
        if isinstance(value, (list, dict)) and not raw.strip().startswith(("[", "{")):
            value = raw  # only flow style is a list or mapping: "-" or "a: b" is text, not YAML's block forms
        options[name.strip()] = value
    return options


#: the command whose parser reads the registry (its --engine choices, its output formats' flags): only the one
#: being run, so that ``privaudit --help`` and ``privaudit policy check`` build no registry for them; "*": all
_REGISTRY_FOR: list[str | None] = ["*"]


def registry_wanted(command: str) -> bool:
    """Whether ``command``'s parser may read the plugin registry while it is built (see :func:`parsing_for`)."""
    return _REGISTRY_FOR[-1] in ("*", command)


@contextmanager
def parsing_for(command: str | None):
    """While the parser is built for ``command`` (None: no command, e.g. ``privaudit --help``), only that
    command's parser reads the registry."""
    _REGISTRY_FOR.append(command)
    try:
        yield
    finally:
        _REGISTRY_FOR.pop()
