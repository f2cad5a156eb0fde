"""What plugin authors program against (see ``docs/plugins.md``).

``hookspecs.py`` the hook specifications (one per kind of extension), ``assessor.py`` the assessor record,
its parameters, details and measurement and the capabilities the core relies on, ``remediator.py`` the
remediator record, ``details.py`` and ``helpers.py`` what assessors share, and the section builders a report
section is drawn with (``sections.py`` the data model, ``text.py``, ``figures.py``, ``binning.py``,
``charts.py``), and ``result.py``, the typed report every renderer reads. Nothing here names the driver (``privaudit.pipeline``), even for type checking.
"""
