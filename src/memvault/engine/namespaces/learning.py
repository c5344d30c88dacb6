"""``vault.learning``: the queue of conversations ``vault.remember`` handed over for
extraction (seed 001), run after a quiet period; flush it, count it, listen to it.

Thin over ``profile.learn.Learner``.
"""

from __future__ import annotations

from collections.abc import Callable

from ...profile.learn import Learner
from ...results.profile import Learned


class Learning:
    """The extraction queue of one vault."""

    def __init__(self, learner: Learner) -> None:
        self._learner = learner

    def flush(self) -> int:
        """Run the queued extractions now (instead of after the quiet period); how many
        conversations were learnt from."""
        return self._learner.flush()

    def pending(self) -> int:
        """How many conversations wait for their quiet period."""
        return self._learner.pending()

    def on_learned(self, listener: Callable[[Learned], None]) -> Callable[[], None]:
        """Call ``listener`` after every extraction (in the thread that ran it); returns
        the call that unsubscribes. The agent layer mirrors facts into USER.md with it."""
        return self._learner.subscribe(listener)


__all__ = ["Learning"]
