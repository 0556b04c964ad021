"""hindsight for LlamaIndex (see the LlamaIndex issue; this package is filled in there)."""
