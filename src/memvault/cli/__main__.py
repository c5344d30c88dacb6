"""``python -m memvault.cli``: the command, as the tests and benchmarks start it."""

from .app import run

if __name__ == "__main__":  # pragma: no cover
    run()
