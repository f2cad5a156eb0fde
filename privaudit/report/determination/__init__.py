"""The de-identification determination a privacy officer files (``privaudit determination``): the document's
blocks (:mod:`.model`, :mod:`.build`) and their renderings, HTML and PDF/A (:mod:`.html`) and DOCX
(:mod:`.docx`)."""
