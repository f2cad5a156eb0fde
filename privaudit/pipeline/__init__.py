"""The drivers: what puts the other packages together into an audit, a remediation, an exploration.

* :mod:`.plugins`: the plugin host (built-ins and entry points, one registry);
* :mod:`.audit`: the audit driver (engine, context, checks run behind the guard, the result);
* :mod:`.measurements`: what a check's result must be before it is reported;
* :mod:`.derived`: the utility entries and release series a context shares;
* :mod:`.series`: releases linked person by person (``--previous``);
* :mod:`.remediate`: a remediator's output re-audited and offered only when it passes;
* :mod:`.explore`: the risk-utility map of candidate remediations.
* :mod:`.readers`, :mod:`.measures`: the built-in table readers and utility measures, registered as a
  plugin's are (the built-in engines: :mod:`privaudit.engines.builtin`).

The packages are layered, each importing only those before it: ``common``, ``core``, ``io``,
``runtime``, ``risk``, ``utility``, ``discovery``, ``plugin``, ``engines``, ``assessors``, ``report``,
``remediation``, ``pipeline``, then the command line and the library API (``tests/test_layering.py`` holds them to it)."""
