"""An sdcMicro setup as a privaudit policy's decisions (``privaudit init DATA --from-sdcmicro FILE.rds``).

sdcMicro (Templ, Kowarik & Meindl 2015, "Statistical Disclosure Control for Micro-Data Using the R Package
sdcMicro", JSS 67(4); github.com/sdcTools/sdcMicro) keeps a setup in an ``sdcMicroObj``, an S4 object
(``createSdcObj(dat, keyVars, numVars, weightVar, hhId, strataVar, sensibleVar, pramVars ...)``). pyreadr
(librdata) reads data frames, vectors, matrices and arrays from ``.rds`` files and skips S4 objects and lists
(its documentation, "Known limitations"), so an ``sdcMicroObj`` saved with ``saveRDS`` cannot be read here:
the command says so in one line and names the workaround, the setup exported by one line of R as a data frame
of ``variable`` and ``role`` (docs/import.md; ``tests/peers/sdcmicro_setup.R``), which pyreadr reads.

Roles: ``key`` (keyVars) -- quasi-identifier; ``weight`` (weightVar) -- weight; ``household_id`` (hhId) --
household id; ``sensitive`` (sensibleVar) -- sensitive. Not mapped, said in the draft: ``numeric`` (numVars,
sdcMicro's continuous key variables, whose risk sdcMicro measures by interval disclosure, ``dRisk``, not by a
class-based check; the column's role is drafted as usual),
``strata`` (strataVar), ``pram`` (pramVars: a method's choice, not the release's).
"""

from __future__ import annotations

from pathlib import Path

from privaudit.core.errors import DataError
from privaudit.discovery.decided import Decided

#: sdcMicro's slots, exported as roles, and the policy role each becomes (None: not mapped)
ROLES = {
    "key": "quasi_identifier",
    "weight": "weight",
    "household_id": "household_id",
    "sensitive": "sensitive",
    "numeric": None,
    "strata": None,
    "pram": None,
}
#: which role wins when a variable is exported under several (sdcMicro lets income be numVar and sensibleVar)
_PRECEDENCE = ("weight", "household_id", "key", "sensitive")
WORKAROUND = (
    'export the setup as a data frame: Rscript -e \'s <- readRDS("FILE.rds"); v <- names(s@origData); '
    "r <- function(i, role) if (length(i)) data.frame(variable = v[i], role = role); saveRDS(do.call(rbind, "
    'list(r(s@keyVars, "key"), r(s@numVars, "numeric"), r(s@weightVar, "weight"), r(s@hhId, "household_id"), '
    'r(s@strataVar, "strata"), r(s@sensibleVar, "sensitive"), r(s@pramVars, "pram"))), "FILE.roles.rds")\' '
    "(docs/import.md)"
)


def read_setup(path: Path) -> list[tuple[str, str]]:
    """The (variable, role) pairs of an exported setup, read with pyreadr; one line naming the file when it
    cannot be read, holds an S4 object or list (an ``sdcMicroObj``), or is not a variable/role data frame."""
    import warnings

    try:
        import pyreadr
    except ImportError:
        raise DataError(f"{path}: reading .rds files needs pyreadr (pip install 'privaudit[sdcmicro]')") from None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            objects = pyreadr.read_r(str(path))
    except Exception as exc:  # librdata's errors: not an R file, compressed oddly, truncated
        raise DataError(f"{path}: not an R data file pyreadr can read ({type(exc).__name__}: {exc})") from None
    if not objects:
        skipped = any("S4" in str(w.message) for w in caught)
        raise DataError(
            f"{path}: holds {'an S4 object or a list' if skipped else 'nothing pyreadr reads'} (an sdcMicroObj, as "
            f"saveRDS writes it), which pyreadr cannot read; {WORKAROUND}"
        )
    frame = next(iter(objects.values()))
    if list(getattr(frame, "columns", [])) != ["variable", "role"]:
        raise DataError(
            f"{path}: not an sdcMicro setup export (a data frame of variable, role; got "
            f"{', '.join(map(str, getattr(frame, 'columns', []))) or type(frame).__name__}); {WORKAROUND}"
        )
    pairs = [(str(v), str(r)) for v, r in zip(frame["variable"], frame["role"], strict=True)]
    unknown = next((r for _, r in pairs if r not in ROLES), None)
    if unknown is not None:
        raise DataError(f"{path}: role {unknown!r} is not one of sdcMicro's ({', '.join(ROLES)})")
    return pairs


def decided_from_sdcmicro(path: Path) -> Decided:
    """The decisions of an exported sdcMicro setup (module docstring)."""
    decided = Decided(f"the sdcMicro setup {path.name}")
    by_variable: dict[str, list[str]] = {}
    for variable, role in read_setup(path):
        by_variable.setdefault(variable, []).append(role)
    for variable, roles in by_variable.items():
        mapped = [r for r in _PRECEDENCE if r in roles]
        if mapped:
            decided.roles[variable] = str(ROLES[mapped[0]])
            slot = {"key": "keyVars", "weight": "weightVar", "household_id": "hhId", "sensitive": "sensibleVar"}
            decided.note(variable, f"sdcMicro {slot[mapped[0]]}")
        for role in roles:
            if role == "numeric":
                decided.note(
                    variable, "sdcMicro numVars: a continuous key variable (its risk: interval disclosure, dRisk)"
                )
                decided.unmapped.append(f"{variable}: numVars (sdcMicro measures its risk by dRisk; role drafted)")
            elif role in ("strata", "pram"):
                what = "strataVar (no policy field)" if role == "strata" else "pramVars (a method's choice)"
                decided.unmapped.append(f"{variable}: {what}")
    keys = [v for v, r in decided.roles.items() if r == "quasi_identifier"]
    if keys:
        decided.scenarios = {"keyVars": keys}
    return decided


__all__ = ["ROLES", "WORKAROUND", "decided_from_sdcmicro", "read_setup"]
