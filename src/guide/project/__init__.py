"""The project a read is about (C10): which folder, its workflow phase, and the live sources read from it."""
