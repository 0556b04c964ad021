"""The write stage: validate an offered text, screen it, gate it, and plan it against the nearest stored memories."""
