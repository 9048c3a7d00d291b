"""What the tools stand on: one open graph (`context`), its statistics and search index,
the walk, and the full and stub forms of what a walk finds (`presentation`)."""
