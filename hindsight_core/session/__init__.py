"""What every interface shares around the facade: the conversation policy, the write queue, keyed memory, the
context for a model call, and the wording of outcomes, tool choices and model answers."""
