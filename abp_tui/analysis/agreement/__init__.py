"""Agreement between reviewers: its input, imported labels, its tables."""
