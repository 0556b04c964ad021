"""Embedders: text in, unit-length vectors out; the default model (multilingual-e5-small) and the cache of query vectors."""
