"""Built-in report sections: one module per assessor, each registering a
:class:`~privaudit.plugin.sections.Section` through ``privaudit_report_sections``.

A section module imports its assessor's check module (its ``Params``/``Details`` models and ``NAME``) and
the drawing builders of :mod:`privaudit.plugin`; a check module never imports its section: the check
computes, the section presents (docs/architecture.md). Modules here are listed in ``DEFAULT_PLUGINS``, so
they import nothing heavy (numpy, pandas ...) at module level.
"""
