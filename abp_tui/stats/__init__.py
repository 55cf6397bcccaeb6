"""Statistics over judged results: agreement and results summaries.

Pure functions on plain data that return pydantic models carrying their denominators. Nothing
here reads the database or imports the UI.
"""
