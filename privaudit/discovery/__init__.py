"""Discovering what the policy missed: columns that hold direct identifiers, declared or not.

:func:`~privaudit.discovery.scan.scan_frame` scans a bounded sample of every column (header, value
patterns with check digits, person-name lists, uniqueness); the ``direct_identifiers`` assessor fails a
release with an undeclared column of identifiers, and ``privaudit policy check --data`` lists them.
"""
