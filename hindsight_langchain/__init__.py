"""hindsight for LangChain 1.x (see the LangChain issue; this package is filled in there)."""
