"""Seed 002's business evaluation figures and their tables."""
