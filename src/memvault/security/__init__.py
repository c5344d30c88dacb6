"""Protection of what enters a prompt: threat scanning and streaming scrubbing."""
