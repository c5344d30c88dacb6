"""The agent layer: memory providers, the manager that orchestrates them, and model tools."""
