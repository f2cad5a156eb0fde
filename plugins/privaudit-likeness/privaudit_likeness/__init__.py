"""privaudit-likeness: β-likeness and δ-disclosure privacy assessors for privaudit.

A third-party plugin built only on privaudit's public plugin API (see privaudit's ``docs/plugins.md``).
It registers two assessors through the ``privaudit`` entry-point group:

* ``beta_likeness`` (module :mod:`privaudit_likeness.beta_likeness`): basic and enhanced β-likeness
  (Cao & Karras, VLDB 2012);
* ``delta_disclosure`` (module :mod:`privaudit_likeness.delta_disclosure`): δ-disclosure privacy
  (Brickell & Shmatikov, KDD 2008).

The formulas themselves, vectorised over the shared class x value count matrix, are in
:mod:`privaudit_likeness.likeness`.
"""

__version__ = "0.1.0"
