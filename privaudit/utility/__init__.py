"""Utility mathematics: what a release keeps of the original, free of policies and reports."""
