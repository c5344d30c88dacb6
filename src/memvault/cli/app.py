"""The root of the ``memvault`` command: the Typer app and its global options, the
table that puts each command module's commands on it, and ``main``, which turns every
error into an exit code and one line on stderr."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import (
    AuthorizationError,
    ConflictError,
    MemvaultError,
    NotFoundError,
    ValidationError,
)
from . import (
    agents,
    entities,
    history,
    memories,
    netaclaw,
    privacy,
    profile,
    quarantine,
    recall,
    serve,
    transfer,
    upkeep,
    workspace,
)
from .shared import _State
from .startup import jieba_word_table, one_blas_thread

app = typer.Typer(
    name="memvault",
    help="Long-term memory for LLM agents, on one SQLite file.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    ctx: typer.Context,
    db: Annotated[
        Path | None, typer.Option("--db", help="SQLite file (default: $MEMVAULT_HOME/memvault.db)")
    ] = None,
    home: Annotated[
        Path | None,
        typer.Option("--home", help="data directory (default: $MEMVAULT_HOME or ~/.memvault)"),
    ] = None,
) -> None:
    ctx.obj = _State(db, home)


# The commands, in the order ``memvault --help`` lists them (the groups after them).
app.command()(memories.add)
app.command()(memories.search)
app.command()(recall.context)
app.command()(recall.explain)
app.command()(memories.get)
app.command("list")(memories.list_)
app.command()(memories.update)
app.command()(memories.delete)
app.command()(transfer.export)
app.command("import")(transfer.import_)
app.command("set-secret")(privacy.set_secret)
app.command()(privacy.unlock)
app.command()(privacy.erase)
app.command()(privacy.reveal)
app.command()(privacy.audit)
app.command()(serve.serve)
app.command()(serve.mcp)
app.command()(upkeep.reindex)
app.command()(history.decide)
app.command("decision-history")(history.decision_history)
app.command()(history.history)
app.command()(history.undo)
app.command()(upkeep.maintain)
app.command()(upkeep.usage)
app.command()(upkeep.stats)
app.command()(upkeep.users)
app.command()(profile.remember)
app.command()(profile.profile)
app.command("migrate-store")(transfer.migrate_store)
app.command("migrate-v1")(transfer.migrate_v1)
app.command("config-reference")(upkeep.config_reference)
app.command()(upkeep.doctor)
app.add_typer(serve.keys_app, name="keys")
app.add_typer(agents.agents_app, name="agents")
app.add_typer(netaclaw.import_from_app, name="import-from")
app.add_typer(quarantine.quarantine_app, name="quarantine")
app.add_typer(entities.entities_app, name="entities")
app.add_typer(workspace.card_app, name="card")
app.add_typer(workspace.task_app, name="task")


# Library fields as the CLI spells them, so an error names the flag to fix.
_FLAGS = {
    "user_id": "--user",
    "agent_id": "--agent",
    "kind": "--kind",
    "name": "--name",
    "description": "--description",
    "metadata": "--metadata",
    "limit": "--limit",
    "offset": "--offset",
    "query": "QUERY",
    "content": "CONTENT",
    "id": "ID",
    "store": "--store",
    "now": "--now",
    "as_of": "--as-of",
    "include_superseded": "--include-superseded",
    "supersedes": "--supersedes",
    "mem_class": "--class",
    "domain": "--domain",
    "tier": "--tier",
    "sensitivity": "--sensitivity",
    "status": "STATUS",
    "reason": "--reason",
    "dry_run": "--dry-run",
    "prefetch_limit": "--prefetch-limit",
    "enabled": "--enable/--disable",
    "days": "--days",
    "session_id": "--session",
    "workspace_id": "--workspace",
    "task_id": "ID",
    "title": "TITLE",
    "notes": "--notes",
    "goal": "--goal",
    "progress": "--progress",
    "decisions": "--decision",
    "open_questions": "--question",
    "next_step": "--next-step",
    "fields": "--field",
    "expected_revision": "--expected-revision",
    "replace": "--replace",
    "sort": "--sort",
    "created_after": "--created-after",
    "created_before": "--created-before",
    "center": "--center",
    "depth": "--depth",
    "max_tokens": "--max-tokens",
}


#: What to do about an error, in the CLI's words (see ``errors.LIBRARY_REMEDIES``).
_REMEDIES = {
    "import.skip_existing": "add --skip-existing to import only the new ids",
    "update.fields": "add at least one of --content, --name, --description, --kind, --metadata",
    "netaclaw.id_prefix": "import this database under ids of its own with --id-prefix mysql-",
    "netaclaw.rename": "map each with --agent-id NAME=ID / --user-id NAME=ID",
    "reveal.set_secret": "set one first with `memvault set-secret --user ID` (stdin holds it)",
    "reveal.current_secret": "to change it add --current (stdin: the current secret, then the "
    "new one), or --reset as an administrator",
}


def _flagged(message: str, field: str, flag: str) -> str:
    """``message`` about the library's ``field`` in the CLI's words: the sentence starts
    with the flag (``--user 'x y' is not a valid id``), never with the parameter name."""
    message = _partners(message)
    if message.startswith(field + ": "):
        return f"{flag}: {message[len(field) + 2 :]}"
    if message.startswith(field + " "):
        return flag + message[len(field) :]
    return message if message.startswith(flag) else f"{flag}: {message}"


def _partners(message: str) -> str:
    """The date range's other end named by its flag too (``created_after must be
    earlier than --created-before``), past the start that ``_flagged`` rewrites."""
    head, sep, rest = message.partition(" ")
    for field in ("created_after", "created_before"):
        rest = rest.replace(field, _FLAGS[field])
    return head + sep + rest


def _fail(message: str, code: int) -> int:
    """Print one line of error on stderr; return the exit code."""
    text = " ".join(str(message).split()) or "failed"
    typer.echo(f"error: {text}", err=True)
    return code


def _usage_error(exc: Exception) -> int:
    """A command-line usage error (typer's click exceptions) as one line, exit code 2."""
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
        typer.echo(ctx.get_help())
        return 2
    render = getattr(exc, "format_message", None)
    message = render() if callable(render) else str(exc)
    hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
    code = getattr(exc, "exit_code", 2)
    return _fail(message + hint, code if isinstance(code, int) else 2)


def _plain_help(command: Any) -> Any:
    """Help without typer's type labels: a flag (``--help`` too) shows no ``<bool>``, an
    option's value is named (``--user USER``), an argument shows its name alone. Choices
    keep their list of values."""
    for param in getattr(command, "params", ()):
        if param.name is None:
            continue
        if getattr(param, "param_type_name", "") == "argument":
            param.metavar = param.metavar or param.name.upper()
            param.display_type_rich = lambda ctx: None  # the name says it: no <str>
            continue
        if param.metavar is not None:
            continue
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
            continue
        descriptor = getattr(param, "type_descriptor", None)
        if not getattr(descriptor, "is_choice", False):
            param.metavar = param.name.upper()
    make_help = getattr(command, "get_help_option", None)
    if make_help is not None:

        def help_option(ctx: Any, make: Any = make_help) -> Any:
            option = make(ctx)
            if option is not None:
                option.metavar = ""
            return option

        command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)
    return command


def main(argv: list[str] | None = None) -> int:
    """Run the app; turn every error into an exit code and one line on stderr."""
    try:
        command = _plain_help(typer.main.get_command(app))
        result = command.main(args=argv, prog_name="memvault", standalone_mode=False)
    except SystemExit as exc:  # a command exited on purpose
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except typer.Abort:
        return _fail("aborted", 1)
    except typer.TyperException as exc:  # usage: unknown option, missing or unparsable value
        return _usage_error(exc)
    except (ValidationError, NotFoundError, ConflictError, AuthorizationError) as exc:
        field = str(exc.context.get("field"))
        flag = _FLAGS.get(field)
        message = exc.say(_REMEDIES)
        if flag:
            message = _flagged(message, field, flag)
        return _fail(message, 2)
    except MemvaultError as exc:
        return _fail(exc.say(_REMEDIES), 1)
    except Exception as exc:  # a bug: still one line, and the exit code says failure
        return _fail(f"unexpected {type(exc).__name__}: {exc} (a bug; please report it)", 1)
    return result if isinstance(result, int) else 0


def run() -> None:
    """Console-script entry point (a process of its own: see ``startup``)."""
    one_blas_thread(sys.argv[1:])
    jieba_word_table(sys.argv[1:])
    sys.exit(main())
