"""The base every other package builds on: policy and hierarchies, loading and coding the table, the shared
class summary, the audit context, the plugin hook specifications and the guard plugin code runs behind.
The core imports none of the other packages (the drivers that put them together are :mod:`privaudit.pipeline`)."""
