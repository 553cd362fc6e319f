"""The route stage: an address or prompt line resolved to content or a call, and a call finished (C3, C9)."""
