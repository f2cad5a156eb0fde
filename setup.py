"""Package list only (metadata is in pyproject.toml): templates/ installs as privaudit.templates."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["privaudit", "privaudit.*"]) + ["privaudit.templates"],
    package_dir={"privaudit.templates": "templates"},
)
