"""Recall: the plan the engine runs (`plan`) and its ranking formula (`formula`)."""
