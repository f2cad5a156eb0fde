"""privaudit-extras: one extension of every kind the first example plugin (privaudit-likeness) does not add.

A third-party plugin built on privaudit's plugin API (see privaudit's ``docs/plugins.md``). Each entry point
of the ``privaudit`` group names one module, and each module registers one extension:

* ``sqlite`` (:mod:`privaudit_extras.sqlite_engine`): an engine, the class summary computed in SQLite;
* ``jsonl`` (:mod:`privaudit_extras.jsonl`): a reader for JSON Lines files;
* ``distinct_kept`` (:mod:`privaudit_extras.distinct_kept`): a utility measure, the share of each
  quasi-identifier's original values the release keeps;
* ``release_card`` (:mod:`privaudit_extras.release_card`): a report chapter, the release at a glance;
* ``checks-csv`` (:mod:`privaudit_extras.checks_csv`): an output format, one CSV row per check;
* ``round`` (:mod:`privaudit_extras.rounding`): a remediator, µ-ARGUS rounding of numeric quasi-identifiers,
  with the candidates it offers ``remediate --explore``.

No module imports numpy, pandas, pyarrow or scipy at module level: privaudit loads every plugin for
``--help`` and ``policy check``.
"""

__version__ = "0.1.0"
