"""``python -m memvault``: the CLI, for when the ``memvault`` command is not on PATH."""

from memvault.cli import run

if __name__ == "__main__":
    run()
