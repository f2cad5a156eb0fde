"""Check digits of identifier numbers by ``python-stdnum`` (its validators follow each number's
specification), over arrays of candidate strings already matched by the recognizers' patterns.

* :data:`luhn` -- payment cards (ISO/IEC 7812): ``stdnum.luhn``;
* :data:`iban` -- IBAN (ISO 13616 mod 97-10 and each country's BBAN format): ``stdnum.iban``;
* :data:`fr_nir` -- French NIR (the key, Corsica's 2A/2B): ``stdnum.fr.nir``;
* :data:`nl_bsn` -- Dutch BSN (the "11-proof"): ``stdnum.nl.bsn``;
* :data:`es_dni_nie` -- Spanish DNI and NIE (the letter of the number mod 23): ``stdnum.es.dni``,
  ``stdnum.es.nie``;
* :data:`de_idnr` -- German tax identification number (ISO 7064 MOD 11,10, the digit-repetition rule):
  ``stdnum.de.idnr``;
* :data:`it_codice_fiscale` -- Italian fiscal code (the check letter, omocodia): ``stdnum.it.codicefiscale``;
* :data:`us_ssn` -- US social security number (the SSA's excluded areas, groups and serials): ``stdnum.us.ssn``.

They are the maintained reference implementations, used rather than checksums of our own. Each is applied to the distinct values of a
column's bounded sample that its pattern matched, so the per-value call is bounded.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _validator(*modules: str) -> Callable[[np.ndarray], np.ndarray]:
    import importlib

    loaded = [importlib.import_module(f"stdnum.{m}") for m in modules]

    def check(values: np.ndarray) -> np.ndarray:
        return np.fromiter((any(m.is_valid(str(v)) for m in loaded) for v in values), dtype=bool, count=len(values))

    check.__name__ = "_".join(m.replace(".", "_") for m in modules)
    return check


luhn = _validator("luhn")
iban = _validator("iban")
fr_nir = _validator("fr.nir")
nl_bsn = _validator("nl.bsn")
es_dni_nie = _validator("es.dni", "es.nie")
de_idnr = _validator("de.idnr")
it_codice_fiscale = _validator("it.codicefiscale")
us_ssn = _validator("us.ssn")
