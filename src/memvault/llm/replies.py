"""JSON answers from a chat model, read tolerantly and checked.

Models asked for "only JSON" still wrap it in code fences, put a sentence before it or
leave a trailing comma. :func:`parse_json` reads the first JSON object (or array) in the
text through all of that; :func:`ask_json` validates it against a pydantic model and,
when it does not fit, asks once more with the problem spelled out — then raises
``LLMError`` saying what was wrong, so a bad answer is reported, never silently dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from ..errors import LLMError
from .client import AsyncChatClient, Chat

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def _without_trailing_commas(text: str) -> str:
    """``text`` with every comma that directly precedes ``}`` or ``]`` removed, outside
    strings (a string's own ",}" stays)."""
    out: list[str] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch == ",":
            rest = text[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(ch)
    return "".join(out)


def json_values(text: str) -> Iterator[Any]:
    """Every JSON object or array a model's answer holds, in order: the contents of each
    code fence, then the whole text; in each, from every ``{`` or ``[`` on, what decodes
    there (trailing commas allowed). Nothing for text that is not a string."""
    if not isinstance(text, str):
        return
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        cleaned = _without_trailing_commas(candidate)
        for start, ch in enumerate(cleaned):
            if ch not in "{[":
                continue
            try:
                value, _ = _DECODER.raw_decode(cleaned, start)
            except ValueError:
                continue
            yield value


def parse_json(text: str) -> Any:
    """The first JSON object or array in a model's answer (:func:`json_values`);
    ``ValueError`` if there is none."""
    if not isinstance(text, str):
        raise ValueError("the answer is not text")
    for value in json_values(text):
        return value
    raise ValueError("the answer holds no JSON object")


def _problem(answer: str, schema: type[M]) -> tuple[M | None, str]:
    try:
        value = parse_json(answer)
    except ValueError as exc:
        return None, str(exc)
    try:
        return schema.model_validate(value), ""
    except PydanticValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'the object'}: {e['msg']}"
            for e in exc.errors()[:5]
        )
        return None, f"the JSON does not fit the schema ({details})"


def _again(messages: Sequence[dict[str, str]], answer: str, problem: str) -> list[dict[str, str]]:
    return [
        *messages,
        {"role": "assistant", "content": answer},
        {
            "role": "user",
            "content": f"That answer could not be used: {problem}. Reply again with only "
            "the JSON object asked for, nothing before or after it.",
        },
    ]


def _failed(schema: type[BaseModel], problem: str) -> LLMError:
    return LLMError(
        f"the LLM answered twice without the JSON asked for ({schema.__name__}): {problem}"
    )


def ask_json(
    client: Chat,
    messages: Sequence[dict[str, str]],
    schema: type[M],
    *,
    temperature: float | None = None,
) -> M:
    """The model's answer to ``messages`` as a validated ``schema``; asked once more with
    the problem when the first answer does not fit; ``LLMError`` when neither does."""
    answer = client.complete(messages, temperature=temperature)
    value, problem = _problem(answer, schema)
    if value is not None:
        return value
    again = client.complete(_again(messages, answer, problem), temperature=temperature)
    value, problem = _problem(again, schema)
    if value is None:
        raise _failed(schema, problem)
    return value


async def ask_json_async(
    client: AsyncChatClient,
    messages: Sequence[dict[str, str]],
    schema: type[M],
    *,
    temperature: float | None = None,
) -> M:
    """``ask_json`` for asyncio code."""
    answer = await client.complete(messages, temperature=temperature)
    value, problem = _problem(answer, schema)
    if value is not None:
        return value
    again = await client.complete(_again(messages, answer, problem), temperature=temperature)
    value, problem = _problem(again, schema)
    if value is None:
        raise _failed(schema, problem)
    return value


__all__ = ["ask_json", "ask_json_async", "json_values", "parse_json"]
