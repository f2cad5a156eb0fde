"""Built-in report sections: one module per built-in assessor, each registering its ``Section`` through the
``privaudit_report_sections`` hook. A section imports its check module, never the reverse: the check computes,
the section presents."""
