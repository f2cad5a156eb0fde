"""``NAME=VALUE`` options of the command line (``remediate --option``, ``audit --engine-option``)."""

from __future__ import annotations

from typing import Any

import yaml

from privaudit.core.errors import PrivauditError


def parse_options(pairs: list[str], flag: str = "--option") -> dict[str, Any]:
    """``["k=5", "metric=NLLM", "columns=[age, sex]"]`` -> dict; values are read as YAML scalars/lists."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name.strip():
            raise PrivauditError(f"{flag} {pair!r}: expected NAME=VALUE")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        if isinstance(value, (list, dict)) and not raw.strip().startswith(("[", "{")):
            value = raw  # only flow style is a list or mapping: "-" or "a: b" is text, not YAML's block forms
        options[name.strip()] = value
    return options
