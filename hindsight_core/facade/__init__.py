"""The facade's plumbing: what `Hindsight` stands on (its operations are in `hindsight_core.memory`)."""
