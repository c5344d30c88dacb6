"""The web panel (``memvault/server/static``) in a real browser against a live gateway."""
