"""Annotators' reliability beyond agreement: Dawid-Skene and the one-coin model."""
