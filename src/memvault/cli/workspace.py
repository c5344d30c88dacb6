"""The workspace (seed 004): ``memvault card`` (a conversation's state card) and
``memvault task`` (a workspace's task board)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import NotFoundError, ValidationError
from .shared import AsJson, User, _echo_json, _state

if TYPE_CHECKING:  # the types of the printers; the commands get them from the vault
    from ..workspace.board import Task
    from ..workspace.cards import Card, Change, Revision

card_app = typer.Typer(help="A conversation's state card: show, set, its revisions, delete.")
task_app = typer.Typer(help="A workspace's task board: list, add, move, assign, delete.")
Session = Annotated[str, typer.Option("--session", "-s", help="the conversation (session id)")]
TaskId = Annotated[str, typer.Argument(metavar="ID", help="the task id")]
ExpectedRevision = Annotated[
    int | None,
    typer.Option("--expected-revision", help="the revision you read: refused if it changed since"),
]
CLI_ACTOR = "cli"


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _card_dict(card: Card) -> dict[str, Any]:
    return {
        "user_id": card.user_id,
        "session_id": card.session_id,
        "workspace_id": card.workspace_id,
        "revision": card.revision,
        **card.content.to_dict(),
        "actor": card.actor,
        "updated_at": _when(card.updated_at),
    }


def _echo_card(card: Card) -> None:
    where = f" (workspace {card.workspace_id})" if card.workspace_id else ""
    if card.revision == 0:
        typer.echo(f"no card for session {card.session_id}{where}")
        return
    typer.echo(
        f"card of {card.session_id}{where}: revision {card.revision}, saved "
        f"{_when(card.updated_at)} by {card.actor}"
    )
    c = card.content
    rows = [("goal", c.goal), ("progress", c.progress)]
    rows += [("decision", item) for item in c.decisions]
    rows += [("open question", item) for item in c.open_questions]
    rows += [("next step", c.next_step)]
    rows += [(f"field {name}", value) for name, value in sorted(c.fields.items())]
    for label, text in rows:
        if text:
            typer.echo(f"  {label}: {text}")


def _change_line(change: Change) -> str:
    if change.added or change.removed:
        items = [f"+{i!r}" for i in change.added] + [f"-{i!r}" for i in change.removed]
        return f"{change.part} {' '.join(items)}"
    return f"{change.part} {change.before or ''!r} -> {change.after or ''!r}"


def _revision_dict(r: Revision) -> dict[str, Any]:
    return {
        "revision": r.revision,
        "actor": r.actor,
        "changed_at": _when(r.changed_at),
        "changes": [c.to_dict() for c in r.changes],
        "card": r.content.to_dict(),
    }


def _fields_of(pairs: list[str]) -> dict[str, str | None]:
    fields: dict[str, str | None] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValidationError(
                f"--field {pair!r}: write NAME=VALUE (NAME= with nothing after it removes it)"
            )
        fields[name.strip()] = value.strip() or None
    return fields


@card_app.command("show")
def card_show(ctx: typer.Context, user: User, session: Session, as_json: AsJson = False) -> None:
    """The conversation's state card (none yet: revision 0)."""
    with _state(ctx).vault() as vault:
        card = vault.workspace.card(user_id=user, session_id=session)
    if as_json:
        _echo_json(_card_dict(card))
    else:
        _echo_card(card)


@card_app.command("set")
def card_set(
    ctx: typer.Context,
    user: User,
    session: Session,
    goal: Annotated[str | None, typer.Option(help="what the conversation is for")] = None,
    progress: Annotated[str | None, typer.Option(help="where it stands")] = None,
    decision: Annotated[
        list[str] | None,
        typer.Option("--decision", help="a decision made (repeat; replaces the list)"),
    ] = None,
    question: Annotated[
        list[str] | None,
        typer.Option("--question", help="an open question (repeat; replaces the list)"),
    ] = None,
    next_step: Annotated[str | None, typer.Option(help="what comes next")] = None,
    field: Annotated[
        list[str] | None,
        typer.Option("--field", help="NAME=VALUE (repeat); NAME= removes that field"),
    ] = None,
    workspace: Annotated[
        str | None, typer.Option("--workspace", "-w", help="tie the conversation to it")
    ] = None,
    expected_revision: ExpectedRevision = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="empty the parts not given here")
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Change the parts given and keep the card as its next revision (actor: cli)."""
    with _state(ctx).vault() as vault:
        before = vault.workspace.card(user_id=user, session_id=session).revision
        card = vault.workspace.upsert_card(
            user_id=user,
            session_id=session,
            goal=goal,
            progress=progress,
            decisions=decision,
            open_questions=question,
            next_step=next_step,
            fields=None if field is None else _fields_of(field),
            expected_revision=expected_revision,
            actor=CLI_ACTOR,
            workspace_id=workspace,
            replace=replace,
        )
    if as_json:
        _echo_json(_card_dict(card))
    elif card.revision == before:
        typer.echo(f"nothing changed: the card of {session} stays at revision {card.revision}")
    else:
        typer.echo(f"saved the card of {session} as revision {card.revision}")


@card_app.command("revisions")
def card_revisions(
    ctx: typer.Context, user: User, session: Session, as_json: AsJson = False
) -> None:
    """Every revision of the card, oldest first: when, who, what changed."""
    with _state(ctx).vault() as vault:
        found = vault.workspace.card_revisions(user_id=user, session_id=session)
    if as_json:
        _echo_json([_revision_dict(r) for r in found])
        return
    if not found:
        typer.echo(f"no revisions: session {session} has no card")
    for r in found:
        typer.echo(f"r{r.revision}  {_when(r.changed_at)}  {r.actor}")
        for change in r.changes:
            typer.echo(f"  {_change_line(change)}")


@card_app.command("delete")
def card_delete(ctx: typer.Context, user: User, session: Session) -> None:
    """Drop the card and all its revisions."""
    with _state(ctx).vault() as vault:
        gone = vault.workspace.delete_card(user_id=user, session_id=session)
    if not gone:
        raise NotFoundError(
            f"session {session} has no card: see `memvault card list --user {user}`"
        )
    typer.echo(f"deleted the card of {session}")


@card_app.command("list")
def card_list(
    ctx: typer.Context,
    user: User,
    workspace: Annotated[
        str | None, typer.Option("--workspace", "-w", help="only this workspace's")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """The conversations with a card or a task, and the workspace each is tied to."""
    with _state(ctx).vault() as vault:
        found = vault.workspace.sessions(user_id=user, workspace_id=workspace)
    if as_json:
        _echo_json(
            [
                {
                    "session_id": s.session_id,
                    "workspace_id": s.workspace_id,
                    "card_revision": s.card_revision,
                    "tasks": s.tasks,
                    "updated_at": _when(s.updated_at),
                }
                for s in found
            ]
        )
        return
    if not found:
        typer.echo("no conversations with a card or a task")
    for s in found:
        card = f"card r{s.card_revision}" if s.card_revision else "no card"
        typer.echo(
            f"{s.session_id}  {s.workspace_id or '(no workspace)'}  {card}  tasks: {s.tasks}"
        )


def _task_dict(t: Task) -> dict[str, Any]:
    return {
        "id": t.id,
        "user_id": t.user_id,
        "workspace_id": t.workspace_id,
        "session_id": t.session_id,
        "title": t.title,
        "notes": t.notes,
        "status": t.status.value,
        "revision": t.revision,
        "created_at": _when(t.created_at),
        "updated_at": _when(t.updated_at),
    }


def _task_line(t: Task) -> str:
    where = f"workspace {t.workspace_id}, session {t.session_id}"
    return f"{t.id}  [{t.status.value}]  {t.title}  ({where})"


def _echo_task(t: Task, as_json: bool, said: str) -> None:
    if as_json:
        _echo_json(_task_dict(t))
    else:
        typer.echo(said)


@task_app.command("list")
def task_list(
    ctx: typer.Context,
    user: User,
    workspace: Annotated[
        str | None, typer.Option("--workspace", "-w", help="one workspace's board")
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", "-s", help="one conversation's tasks")
    ] = None,
    status: Annotated[str | None, typer.Option(help="only todo | doing | blocked | done")] = None,
    as_json: AsJson = False,
) -> None:
    """The user's tasks, oldest first."""
    with _state(ctx).vault() as vault:
        found = vault.workspace.tasks(
            user_id=user, workspace_id=workspace, session_id=session, status=status
        )
    if as_json:
        _echo_json([_task_dict(t) for t in found])
        return
    if not found:
        typer.echo("no tasks")
    for t in found:
        typer.echo(_task_line(t))


@task_app.command("add")
def task_add(
    ctx: typer.Context,
    title: Annotated[str, typer.Argument(metavar="TITLE", help="what the task is")],
    user: User,
    workspace: Annotated[str, typer.Option("--workspace", "-w", help="the board it goes on")],
    session: Session,
    notes: Annotated[str, typer.Option(help="more about it")] = "",
    status: Annotated[str, typer.Option(help="todo | doing | blocked | done")] = "todo",
    as_json: AsJson = False,
) -> None:
    """A task on the workspace's board, belonging to one conversation."""
    with _state(ctx).vault() as vault:
        task = vault.workspace.add_task(
            user_id=user,
            workspace_id=workspace,
            session_id=session,
            title=title,
            notes=notes,
            status=status,
        )
    _echo_task(task, as_json, f"added {task.id}  [{task.status.value}]  {task.title}")


@task_app.command("move")
def task_move(
    ctx: typer.Context,
    task_id: TaskId,
    status: Annotated[str, typer.Argument(metavar="STATUS", help="todo | doing | blocked | done")],
    user: User,
    expected_revision: ExpectedRevision = None,
    as_json: AsJson = False,
) -> None:
    """Move the task to another column of its board."""
    with _state(ctx).vault() as vault:
        task = vault.workspace.move_task(
            user_id=user, task_id=task_id, status=status, expected_revision=expected_revision
        )
    _echo_task(task, as_json, f"moved {task.id} to {task.status.value}")


@task_app.command("assign")
def task_assign(
    ctx: typer.Context,
    task_id: TaskId,
    user: User,
    session: Session,
    expected_revision: ExpectedRevision = None,
    as_json: AsJson = False,
) -> None:
    """Give the task to another conversation of its workspace."""
    with _state(ctx).vault() as vault:
        task = vault.workspace.update_task(
            user_id=user, task_id=task_id, session_id=session, expected_revision=expected_revision
        )
    _echo_task(task, as_json, f"{task.id} now belongs to session {task.session_id}")


@task_app.command("delete")
def task_delete(ctx: typer.Context, task_id: TaskId, user: User) -> None:
    """Drop the task."""
    with _state(ctx).vault() as vault:
        if not vault.workspace.delete_task(user_id=user, task_id=task_id):
            raise NotFoundError(f"no task {task_id}: see `memvault task list --user {user}`")
    typer.echo(f"deleted {task_id}")
