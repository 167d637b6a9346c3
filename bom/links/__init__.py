"""Link patterns: each hop described once, counted (closed form) and expanded (cable plan rows)."""
