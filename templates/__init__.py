"""Jinja2 templates of the HTML/PDF report (installed as privaudit.templates)."""
