"""Rendering and publishing files, and the terminal's tables."""
