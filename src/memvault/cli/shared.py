"""What every command module shares: the options spelled the same everywhere, the
per-run state that opens the vault (and decides whether the embedding model loads), and
the small printers (one line per memory, JSON, the progress bar)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import typer

from ..errors import ValidationError
from ..validation import parse_json
from .startup import importing

if TYPE_CHECKING:
    from ..config import VaultConfig
    from ..model import MemoryEntry
    from ..vault import Vault

User = Annotated[str, typer.Option("--user", "-u", help="the user whose memory this is")]
Agent = Annotated[
    str | None, typer.Option("--agent", "-a", help="an agent id (private memories of that agent)")
]
AsJson = Annotated[bool, typer.Option("--json", help="print JSON instead of text")]
# The filters of search and list (each checked by the library, named by its flag).
KindFilter = Annotated[str | None, typer.Option(help="only this kind")]
DomainFilter = Annotated[str | None, typer.Option(help="only work | life")]
ClassFilter = Annotated[str | None, typer.Option("--class", help="only this class")]
TierFilter = Annotated[str | None, typer.Option(help="only active | cold | archive")]
SensitivityFilter = Annotated[
    str | None, typer.Option(help="only normal | sensitive | protected | secret")
]
StatusFilter = Annotated[str | None, typer.Option(help="only decisions in this status")]
SubjectFilter = Annotated[
    str | None,
    typer.Option("--subject", help="only memories about or from: user | assistant | a name"),
]
# Validity (``lifecycle.history``): what was current at a moment, or superseded ones too.
AsOf = Annotated[
    str | None, typer.Option("--as-of", help="ISO 8601: answer with what was current then")
]
WithSuperseded = Annotated[
    bool,
    typer.Option("--include-superseded", help="also memories replaced by newer ones"),
]


class _State:
    def __init__(self, db: Path | None, home: Path | None) -> None:
        self.db = db
        self.home = home
        self.deferred = False  # a write's vectors were left to the back-fill

    def config(self) -> VaultConfig:
        from ..config import load_config  # pydantic loads for a command, not for --help

        config = load_config(home=self.home, db_path=self.db)
        for flag, directory in (
            ("--home (or MEMVAULT_HOME)", config.home),
            ("--db (or MEMVAULT_DB)", config.database.parent),
        ):
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ValidationError(
                    f"{flag}: cannot create the directory {directory} ({exc.strerror}): "
                    "pass a directory you can write"
                ) from None
        return config

    def routed(self, agent: str | None) -> VaultConfig:
        """The configuration whose store holds ``agent``'s memories: the agent's own
        store when ``memvault agents set`` gave it one, else the default."""
        config = self.config()
        if agent is None:
            return config
        from ..agent.stores import AgentRegistry

        store = AgentRegistry.in_home(config.home).get(agent).store
        return config if store is None else config.model_copy(update={"store_url": store})

    def vault(
        self,
        *,
        model: Literal["no", "quick", "yes"] = "no",
        agent: str | None = None,
        query: str | None = None,
        writing: str | None = None,
    ) -> Vault:
        """The vault, with or without its embedding model.

        A CLI process lives for one command, so it pays model start-up only where the
        command needs vectors: ``no`` opens keyword-only (reads, deletes, management);
        ``yes`` embeds on this thread before returning (search, import); ``quick`` does so
        only with a model that starts in well under a second, and otherwise leaves the
        vectors to the back-fill (``memvault reindex``, a server). No back-fill thread
        runs in a CLI process either way. ``agent`` picks that agent's store. ``query``
        (the text a search embeds) or ``writing`` (the text an add stores) starts the
        model that will embed it loading while the engine imports (``embed.warm``).
        """
        config = self.routed(agent)
        if model != "no" and (query or writing):
            from ..embed.warm import warm_up

            warm_up(config.embedding, query or writing or "", query=bool(query))
        with importing():
            from ..vault import Vault  # the engine loads only for a command that opens it

        if model == "no":
            return Vault(config=config, embedder=None)
        config = config.model_copy(
            update={"embedding": config.embedding.model_copy(update={"background": False})}
        )
        # The vault picks its embedder: the configured model, or with the model left at
        # its default, the one the vault recorded (engine.vector_space). Making one does
        # not load it.
        vault = Vault(config=config)
        embedder = vault.embedder
        slow = embedder is not None and not getattr(embedder, "quick_start", False)
        # A write screened by meaning needs the model anyway: then it embeds too.
        if model == "quick" and slow and config.security.semantic_screen != "on":
            vault.close()
            self.deferred = True
            return Vault(config=config, embedder=None)
        return vault


def read_stdin(what: str, *, lines: int | None = None) -> str:
    """``what`` from standard input: all of it, or its first ``lines`` lines (without
    their line ends, joined by newlines). A closed or unreadable stdin, or bytes that are
    not text, is the caller's mistake to fix (exit 2), not a crash."""
    try:
        if lines is None:
            return sys.stdin.read()
        return "\n".join(sys.stdin.readline().rstrip("\n") for _ in range(lines))
    except (OSError, ValueError) as exc:  # ValueError: a closed stdin; UnicodeDecodeError too
        why = "it is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else str(exc)
        raise ValidationError(
            f"cannot read {what} from stdin ({why}): pipe it in, e.g. `echo ... | memvault ...`"
        ) from None


def _state(ctx: typer.Context) -> _State:
    state: _State = ctx.obj
    return state


def _echo_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


def _metadata(raw: str | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = parse_json(raw, "--metadata")
    except ValidationError as exc:
        raise ValidationError(f"{exc}: pass a JSON object") from None
    if not isinstance(value, dict):
        raise ValidationError('--metadata must be a JSON object, like \'{"tag": "x"}\'')
    return value


def _many(count: int, one: str, more: str) -> str:
    """``1 memory``, ``2 memories``."""
    return f"{count} {one if count == 1 else more}"


def _line(entry: MemoryEntry) -> str:
    agent = f" agent={entry.agent_id}" if entry.agent_id else ""
    title = f"{entry.name}: " if entry.name else ""
    text = entry.content.replace("\n", " ")
    if len(text) > 100:
        text = text[:99] + "…"
    held = f"  (quarantined: {entry.quarantine})" if entry.quarantine else ""
    return f"{entry.id}  [{entry.kind.value}]{agent}  {title}{text}{held}"


T = TypeVar("T")


def _counted(
    items: Iterable[T], tick: Callable[[], None], counts: Callable[[T], bool] | None = None
) -> Iterator[T]:
    """``items`` as they are consumed, calling ``tick`` after each (that ``counts``)."""
    for item in items:
        yield item
        if counts is None or counts(item):
            tick()


def _progress(console: Any) -> Any:
    """The progress bar of long commands (import, export, reindex, maintain, migrate-store,
    migrate-v1): on stderr, gone when done, and silent when stderr is not a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
