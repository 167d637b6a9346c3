"""The model's data types: fabrics, the whole model and its typed totals (no stage logic)."""
