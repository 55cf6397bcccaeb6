"""A design's results: tallies, the one document, its tables, its headline, the watched
sequences."""
