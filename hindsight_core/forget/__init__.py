"""Forgetting: which memories a request names, and what forgetting them does to the knowledge drawn from them."""
