"""Racks and rack units: which device stands where."""
