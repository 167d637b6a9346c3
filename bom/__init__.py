"""clusterbom: from "we need N accelerators" to a costed bill of materials."""

__version__ = "0.1.0"
