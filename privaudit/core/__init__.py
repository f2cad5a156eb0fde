"""The audit pipeline itself: policy and hierarchies, loading and coding the table, the shared class
summary, the audit context and driver, and the plugin host. Everything else (risk maths, assessors,
remediation, reports, engines, the CLI) builds on these modules."""
