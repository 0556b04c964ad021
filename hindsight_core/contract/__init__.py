"""What `MemoryAPI` speaks in, below the stages: option values and their checks, results, a record's JSON."""
