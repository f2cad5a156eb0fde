"""Reading tables: every file, directory, glob, object-store URI and in-memory frame privaudit reads.

``locations.py`` resolves and fingerprints what a path names, ``data.py`` reads CSV and Parquet into a typed
:class:`~privaudit.io.data.Table`, ``coding.py`` codes one column as the policy declares it, ``source.py`` is
the one source every engine reads through (:func:`~privaudit.io.source.open_source`), and ``dataset.py`` the
directories and globs of Parquet/CSV parts. The engines, the discovery scan and the drivers import from here.
"""
