"""Reading text with no model: validation and keyword tokens, token counts, entities, conflict cues, and time named in words."""
