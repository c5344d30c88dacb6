"""The HTTP API (FastAPI). Only this package imports fastapi and uvicorn."""
