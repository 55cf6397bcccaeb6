"""The AI-judge report: judges measured against people and themselves."""
