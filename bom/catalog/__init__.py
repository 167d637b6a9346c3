"""The catalog: part rows with their sources, loading, checks, prices, the standard lookup."""
