"""The README and the documentation pages: their examples run, nothing goes undocumented."""
