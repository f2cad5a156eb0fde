"""Errors that mean "bad input": the CLI prints their one-line message and exits with code 2."""

from __future__ import annotations

from collections.abc import Iterable


class PrivauditError(Exception):
    """Bad input or usage. The message is one line that names the file, column or policy field."""

    exit_code = 2

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split("\n")))


class PolicyError(PrivauditError):
    """The policy file is malformed or inconsistent."""


class DataError(PrivauditError):
    """The released (or original, or population) table cannot be read as the policy describes."""


class HierarchyError(PrivauditError):
    """A generalization hierarchy is malformed or does not cover the data."""


def first_line(exc: BaseException | str, default: str = "") -> str:
    """The first non-blank line of an exception's message (or of a text), stripped; ``default`` when there is
    none (an empty message, or one of blank lines only)."""
    text = str(exc)
    return next((line.strip() for line in text.splitlines() if line.strip()), default)


def did_you_mean(name: object, names: Iterable[object]) -> str:
    """`` (did you mean 'age'?)`` when ``name`` is close to one of ``names`` (a typo), else an empty string: the
    same hint for an unknown policy field, assessor, method, column or option."""
    import difflib

    text = str(name)
    choices = [str(n) for n in names]
    close = difflib.get_close_matches(text, choices, n=1, cutoff=0.6)
    if not close:  # a case or separator slip (K_Anonymity, k-anonymity) is not always close by ratio
        folded = {c.lower().replace("-", "_").replace(" ", "_"): c for c in choices}
        key = text.lower().replace("-", "_").replace(" ", "_")
        close = [folded[key]] if key in folded else []
    return f" (did you mean {close[0]!r}?)" if close and close[0] != text else ""


def shortened(value: object, limit: int = 80) -> str:
    """``value`` as text of at most ``limit`` characters (a message names a value, never prints a page of it)."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class PrivauditWarning(UserWarning):
    """Something the user should know before the work's result (a check that cannot pass on a table this
    small ...): the command line prints it as one line ``privaudit: warning: ...``; the library leaves it to
    Python's warnings."""


def notice(message: str) -> None:
    """Tell the user ``message`` now, as a :class:`PrivauditWarning`."""
    import warnings

    warnings.warn(PrivauditWarning(" ".join(str(message).split("\n"))), stacklevel=2)
