"""The arguments the command line and the library API share, each validated once, here: the command line
reads them as text (``--check-timeout 30``) and the API as values (``check_timeout=30``), and both refuse a
bad one with the same line, naming the argument as its caller wrote it (the flag, or the keyword).

An :class:`Argument` is its two names and one ``parse`` function that turns what it is given (text or value)
into the value the pipeline uses, or raises :class:`ValueError` saying what is expected. The command line
uses :meth:`Argument.cli` as argparse's ``type`` (or :meth:`Argument.value` with ``api=False`` once the
arguments are parsed); the API and the pipeline's own entry points call :meth:`Argument.value`.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from privaudit.core.errors import PrivauditError

#: the most seconds a check may be given (11.6 days: beyond it a time limit means nothing)
MAX_SECONDS = 1e6


@dataclass(frozen=True)
class Argument:
    keyword: str  # the API's name: check_timeout
    flag: str  # the command line's: --check-timeout
    parse: Callable[[Any], Any]  # text or value -> the value used; ValueError(what is expected) otherwise

    def value(self, value: Any, api: bool = True) -> Any:
        """``value`` parsed, or :class:`PrivauditError`: one line naming the argument (the keyword for the
        API, the flag for the command line) and what it expects."""
        try:
            return self.parse(value)
        except ValueError as exc:
            raise PrivauditError(f"{self.keyword if api else self.flag}: {exc}") from None

    def cli(self, text: str) -> Any:
        """argparse's ``type``: argparse names the flag (``argument --check-timeout: ...``), exit 2."""
        try:
            return self.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None


def _got(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _real(value: Any) -> float | None:
    """A number from a number or its text (never a bool), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _seconds(value: Any) -> float:
    number = _real(value)
    if number is None or not math.isfinite(number) or number <= 0 or number > MAX_SECONDS:
        raise ValueError(f"expected a number of seconds between 0 and 1e6, got {_got(value)}")
    return number


def _count(value: Any) -> int:
    """A whole number of at least 1: an int, or its digits as text (2.5, True and "3.0" are refused)."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().lstrip("+").isdigit():
        number = int(value)
    else:
        number = 0
    if number < 1:
        raise ValueError(f"give a number of at least 1 (got {_got(value)})")
    return number


def _tolerance(value: Any) -> tuple[str, float]:
    """``0.01`` (absolute) or ``"5%"`` (relative to the value before)."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] in ("absolute", "relative"):
        return value  # already parsed
    raw = str(value).strip() if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
    relative = raw is not None and raw.endswith("%")
    number = _real(raw[:-1] if relative else raw) if raw is not None else None
    if number is None:
        raise ValueError(f"expected a number (absolute) or a percentage like 5%, got {_got(value)}")
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"expected a finite number, not negative, got {_got(value)}")
    return ("relative", number / 100) if relative else ("absolute", number)


def _choice(*choices: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {_got(value)}")
        return value

    return parse


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected True or False, got {_got(value)}")
    return value


def _methods(value: Any) -> list[str]:
    """Explore's candidate families: ``"a,b"`` or a list of names."""
    from privaudit.pipeline.explore import explore_methods, known_methods
    from privaudit.pipeline.plugins import get_registry

    if isinstance(value, str):
        names = value.split(",")
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        names = list(value)
    else:
        raise ValueError(f"expected method names, as 'a,b' or a list, got {_got(value)}")
    return known_methods(names, explore_methods(get_registry()))


def _utility(value: Any) -> str:
    from privaudit.pipeline.explore import utility_choices

    if not isinstance(value, str) or value not in utility_choices():
        raise ValueError(f"unknown or unusable measure {_got(value)} (one of: {', '.join(utility_choices())})")
    return value


def _engine(value: Any) -> str:
    from privaudit.core.errors import PrivauditError, did_you_mean
    from privaudit.engines import engines

    try:
        known = engines()
    except PrivauditError:  # a broken plugin: the audit says so in one line when it builds the registry
        if isinstance(value, str):
            return value
        raise ValueError(f"unknown engine {_got(value)}") from None
    if not isinstance(value, str) or value not in known:
        raise ValueError(
            f"unknown engine {_got(value)}{did_you_mean(value, known) if isinstance(value, str) else ''} "
            f"(available: {', '.join(repr(name) for name in known)})"
        )
    return value


def _progress(value: Any) -> Any:
    if value is None or isinstance(value, bool) or callable(value):
        return value
    raise ValueError(f"expected None, True, False or a callable f(label, done, total), got {_got(value)}")


def _policy(value: Any) -> Any:
    from privaudit.core.policy import Policy

    if isinstance(value, (str, os.PathLike, dict, Policy)) and not (isinstance(value, str) and not value.strip()):
        return value
    raise ValueError(
        f"expected a policy YAML file's path, a dict in the file's shape or a loaded Policy, got {_got(value)}"
    )


CHECK_TIMEOUT = Argument("check_timeout", "--check-timeout", _seconds)
MAX_CANDIDATES = Argument("max_candidates", "--max-candidates", _count)
TOLERANCE = Argument("tolerance", "--tolerance", _tolerance)
FAIL_ON = Argument("fail_on", "--fail-on", _choice("error", "warning"))
ALLOW_CHANGED_POLICY = Argument("allow_changed_policy", "--allow-changed-policy", _flag)
METHODS = Argument("methods", "--methods", _methods)
UTILITY = Argument("utility", "--utility", _utility)
PROGRESS = Argument("progress", "--quiet", _progress)


def _today(value: Any) -> Any:
    """A day from a ``datetime.date`` or its ISO text (``2026-05-01``): the day exceptions are judged on."""
    import datetime

    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"expected a date YYYY-MM-DD, got {_got(value)}")


POLICY = Argument("policy", "--policy", _policy)
TODAY = Argument("today", "--today", _today)
ENGINE = Argument("engine", "--engine", _engine)

#: every shared argument, by its API name
ARGUMENTS = {
    a.keyword: a
    for a in (
        CHECK_TIMEOUT,
        MAX_CANDIDATES,
        TOLERANCE,
        FAIL_ON,
        ALLOW_CHANGED_POLICY,
        METHODS,
        UTILITY,
        PROGRESS,
        POLICY,
        ENGINE,
        TODAY,
    )
}


def optional(argument: Argument, value: Any, api: bool = True) -> Any:
    """``value`` parsed, None (the default) left as None."""
    return None if value is None else argument.value(value, api)
