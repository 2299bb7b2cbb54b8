"""Compilation driver: the pipeline and ``build``."""
