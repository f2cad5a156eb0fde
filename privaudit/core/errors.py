"""Errors that mean "bad input": the CLI prints their one-line message and exits with code 2."""


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
