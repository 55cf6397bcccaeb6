"""Rankings of systems from pairwise votes: sources, fit, document, text."""
