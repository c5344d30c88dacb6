"""Retrieval channels (keyword, vector) and how their rankings are combined."""
