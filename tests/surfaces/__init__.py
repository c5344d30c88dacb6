"""What every surface (library, CLI, HTTP, MCP, panel) must do alike."""
