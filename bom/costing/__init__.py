"""BOM lines, the order, the TCO, the report's figures and the generation comparison."""
