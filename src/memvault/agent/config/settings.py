"""The agent layer's settings as models: ``MemoryConfig`` and its sections, with the tables
the layers are checked against (which fields exist, which a user may write, which were
retired and why). Reading and merging the layers is :mod:`.layers`' job.

Fields are declared once, on the models; ``LEAF_FIELDS`` and the writable fields' type
adapters are derived from them, so a new setting is one ``Field`` here (and, if users may
change it, one line in ``USER_WRITABLE_FIELDS``).
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    TypeAdapter,
    field_validator,
)
from pydantic.fields import FieldInfo

from ...config import ExtractionConfig
from ...workspace.presets import PRESET_ALIASES

USER_WRITABLE_FIELDS: tuple[str, ...] = (
    "background_extraction.enabled",
    "hindsight.bank_mission",
    "hindsight.memory_mode",
    "hindsight.recall_budget",
    "injection.enabled",
    "injection.include_builtin",
    "injection.include_hindsight",
    "injection.max_tokens",
    "injection.preset",
    "injection.scope",
)
"""Fields a user (or the admin, globally) may change at run time without a restart.

Everything else is fixed by config.yaml: the provider choice, the Hindsight endpoint and
key, the bank templates (changing them strands stored memories), the builtin character
limits (they shape the cached prompt prefix) and the security switches.
"""

RETIRED_FIELDS: dict[str, str] = {}
"""Settings that were removed, each with what to do instead; a file naming one is refused
with that advice. Empty today: every key of seed 000 section 9.1 is accepted (the
background-extraction tuning keys are handed to the engine, see
:mod:`.seed_keys`)."""


def retired_reason(dotted: str) -> str | None:
    """Why ``dotted`` (or the section it belongs to) was removed, or None if it was not."""
    parts = dotted.split(".")
    for end in range(1, len(parts) + 1):
        reason = RETIRED_FIELDS.get(".".join(parts[:end]))
        if reason is not None:
            return reason
    return None


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BuiltinSection(_Section):
    """The local USER.md / MEMORY.md store, which is always present."""

    enabled: bool = Field(
        True,
        description="load and inject the local memory files; false: agents built from config "
        "get neither the files nor the memory tool",
    )
    memory_char_limit: int = Field(2200, ge=1, description="character quota of MEMORY.md")
    user_char_limit: int = Field(1375, ge=1, description="character quota of USER.md")
    deduplicate_on_load: bool = Field(
        True,
        description="accepted for seed 000 configs; entries are always deduplicated on load, "
        "since replace and remove find an entry by text that must be unique",
    )


class HindsightSection(_Section):
    """The external Hindsight service: where it is, which banks, how recall and retain work."""

    mode: Literal["cloud", "local_embedded", "local_external"] = Field(
        "local_external",
        description="how Hindsight is reached; memvault connects over HTTP to api_url in "
        "every mode (with local_embedded, start the server there yourself)",
    )
    api_url: str = Field("http://localhost:8765", description="Hindsight HTTP endpoint")
    api_key: SecretStr | None = Field(
        None, description="Hindsight API key; usually $HINDSIGHT_API_KEY in config.yaml"
    )
    bank_id_template: str = Field(
        "deerflow-user-{user_id}", description="bank of facts about the user, per user"
    )
    work_bank_id_template: str = Field(
        "deerflow-work-{user_id}-{agent_id}",
        description="bank of working notes, per user and agent",
    )
    memory_mode: Literal["context", "tools", "hybrid"] = Field(
        "context",
        description="context = recall is injected, tools = the model calls recall tools, "
        "hybrid = both",
    )
    bank_mission: str = Field(
        "", max_length=4000, description="guidance that shapes how Hindsight reflects"
    )
    bank_retain_mission: str = Field(
        "", max_length=4000, description="guidance that shapes what Hindsight retains"
    )
    recall_budget: Literal["low", "mid", "high"] = Field("mid", description="recall depth")
    recall_max_tokens: int = Field(4096, ge=1, description="token cap of one recall")
    recall_max_input_chars: int = Field(800, ge=1, description="query characters sent to recall")
    auto_recall: bool = Field(True, description="recall before every model call")
    auto_retain: bool = Field(True, description="retain every finished turn")
    retain_async: bool = Field(True, description="retain in the background")
    retain_every_n_turns: int = Field(1, ge=1, description="retain once per this many turns")
    retain_user_prefix: str = Field("User", description="speaker label of user messages")
    retain_assistant_prefix: str = Field(
        "Assistant", description="speaker label of assistant messages"
    )
    timeout_seconds: float = Field(
        10.0,
        gt=0,
        le=300,
        description="bound of every call to the server; past it, recall "
        "injects nothing and a retain is queued again",
    )
    retain_queue_size: int = Field(
        256,
        ge=1,
        le=100_000,
        description="turns waiting for a background retain; when "
        "full the oldest is dropped (and counted in the log)",
    )
    env: str = Field(
        "",
        max_length=32,
        pattern=r"^[A-Za-z0-9_-]*$",
        description="fills an {env} placeholder of the bank templates (dev, staging, prod) "
        "so environments never share banks; empty drops the placeholder",
    )

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("api_key", mode="before")
    @classmethod
    def _empty_key_is_none(cls, value: object) -> object:
        # An exported-but-empty HINDSIGHT_API_KEY means "no key", not the key "".
        return None if value == "" else value

    @field_validator("bank_id_template")
    @classmethod
    def _user_bank(cls, value: str) -> str:
        return _check_template(value, required={"user_id"})

    @field_validator("work_bank_id_template")
    @classmethod
    def _work_bank(cls, value: str) -> str:
        return _check_template(value, required={"user_id", "agent_id"})


def _check_template(value: str, required: set[str]) -> str:
    """A bank template without ``{user_id}`` would put every user in the same bank."""
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
    except ValueError as exc:
        raise ValueError(f"is not a valid template ({exc})") from None
    # ``{thread_id}`` (a bank per thread) and ``{env}`` (a deployment suffix, seed 000
    # section 17) are optional; they resolve to "" where the caller has none.
    unknown = names - {"user_id", "agent_id", "thread_id", "env"}
    if unknown:
        raise ValueError(
            f"uses unknown placeholders {sorted(unknown)}; use {{user_id}}, {{agent_id}}, "
            "{thread_id} or {env}"
        )
    missing = required - names
    if missing:
        needed = ", ".join(f"{{{name}}}" for name in sorted(required))
        raise ValueError(f"must contain {needed} so that banks stay separate")
    parsed = list(string.Formatter().parse(value))
    for (_, name, _, _), (between, following, _, _) in itertools.pairwise(parsed):
        if name is not None and following is not None and not between:
            # Nothing tells where one part ends: two (user, agent) pairs would share a bank.
            raise ValueError(
                f"puts {{{name}}} and {{{following}}} side by side: put a separator "
                "(- _ .) between them so that banks stay separate"
            )
    return value


def _preset_name(value: object) -> object:
    """A preset's own name for one of its aliases (seed 004's ``blank-template``)."""
    return PRESET_ALIASES.get(value, value) if isinstance(value, str) else value


class InjectionSection(_Section):
    """What the memory block added to the system prompt contains."""

    enabled: bool = Field(True, description="inject memory into the system prompt")
    max_tokens: int = Field(
        2000,
        ge=1,
        description="token cap of the memory injected into one model call: the files' "
        "snapshot first, recall in what is left",
    )
    include_builtin: bool = Field(True, description="include the local memory files")
    include_hindsight: bool = Field(
        True, description="include the external provider's recall (Hindsight, or the vault)"
    )
    context_tag: str = Field(
        "memory-context",
        pattern=r"^[A-Za-z][A-Za-z0-9_-]*$",
        description="tag name that wraps recalled memory",
    )
    # The names of memvault.workspace.presets.PRESET_NAMES and views.SCOPES (a test
    # keeps them equal).
    preset: Annotated[Literal["task", "daily", "blank"], BeforeValidator(_preset_name)] = Field(
        "daily",
        description="the preset whose budget contract builds the injected block: task, "
        "daily or blank (nothing injected)",
    )
    scope: Literal["session", "workspace", "global"] = Field(
        "global",
        description="which memories recall injects: the session's, the workspace's or all",
    )


def _engine(name: str, note: str = "") -> Any:
    """The engine's ``extraction.<name>`` field (its default and bounds), described as
    the seed key that stands for it: one definition, so the two cannot drift apart."""
    return FieldInfo.merge_field_infos(
        ExtractionConfig.model_fields[name], description=f"the engine's extraction.{name}{note}"
    )


class BackgroundExtractionSection(_Section):
    """Learning from finished conversations in the agent integrations (seed 000 §9.1).

    ``enabled`` is the per-user switch. The other keys are the seed's names for the
    engine's ``extraction.*`` settings (one setting for every surface): ``memvault serve
    --config`` hands the ones config.yaml sets to the engine
    (:func:`memvault.agent.config.seed_keys.engine_extraction`); their defaults here are
    the engine's own (the seed's are the same).
    """

    enabled: bool = Field(
        False,
        description="hand every finished conversation to Vault.remember, which archives it "
        "and, with an LLM configured, extracts facts after a quiet period (how: the engine's "
        "extraction settings)",
    )
    debounce_seconds: float = _engine("debounce_seconds")
    model_name: str | None = _engine("model_name", " (None: llm.model)")
    fact_confidence_threshold: float = _engine("fact_confidence_threshold")
    max_facts_per_extraction: int = _engine("max_facts_per_extraction")
    correction_detection: bool = _engine("correction_detection")
    reinforcement_detection: bool = _engine("reinforcement_detection")


class SecuritySection(_Section):
    """The screen of the builtin USER.md / MEMORY.md files; admin-only so a user cannot
    turn it off. Neither switch lets flagged text reach a model: with ``scan_content``
    off a flagged write is kept on disk (not refused) but still withheld from the prompt,
    and with ``block_invisible_unicode`` off invisible characters are removed from a
    write instead of refusing it. Recalled memory is always fenced as data."""

    scan_content: bool = Field(
        True,
        description="refuse builtin-file writes that match injection or exfiltration "
        "patterns; false keeps them on disk for review, still withheld from the prompt",
    )
    block_invisible_unicode: bool = Field(
        True,
        description="refuse builtin-file writes holding invisible Unicode characters; "
        "false removes the characters and keeps the rest of the write",
    )
    streaming_scrubber: bool = Field(
        True,
        description="accepted for seed 000 configs; no effect: recall is injected per model "
        "call and never streamed back (the scrubber is memvault.security.scrubber)",
    )


class MemoryConfig(BaseModel):
    """The ``memory:`` section of config.yaml: every agent-memory setting, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(
        True,
        description="master switch: false gives agents built from config no memory text, "
        "no memory tools and no external provider",
    )
    # The seed offers 'builtin' | 'hindsight' and defaults to Hindsight, its only external
    # provider; memvault's own engine is one too ('vault'), and the default, since it needs
    # no service running beside it.
    provider: Literal["builtin", "vault", "hindsight"] = Field(
        "vault",
        description="the external provider agents built from config get, also behind "
        "/api/memory/v2 search, reflect and bank clearing: 'vault' (memvault's engine), "
        "'hindsight', or 'builtin' for none (the builtin files are always on)",
    )
    builtin: BuiltinSection = Field(default_factory=BuiltinSection)
    hindsight: HindsightSection = Field(default_factory=HindsightSection)
    injection: InjectionSection = Field(default_factory=InjectionSection)
    background_extraction: BackgroundExtractionSection = Field(
        default_factory=BackgroundExtractionSection
    )
    security: SecuritySection = Field(default_factory=SecuritySection)


def _leaf_fields(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _leaf_fields(annotation, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}"


LEAF_FIELDS: tuple[str, ...] = tuple(_leaf_fields(MemoryConfig))
"""Every setting in dotted form, in declaration order."""

SECTIONS = frozenset(field.rsplit(".", 1)[0] for field in LEAF_FIELDS if "." in field)
SECRET_FIELDS = frozenset({"hindsight.api_key"})


def _writable_adapter(dotted: str) -> TypeAdapter[Any]:
    section, name = dotted.split(".")
    section_model = MemoryConfig.model_fields[section].annotation
    assert isinstance(section_model, type) and issubclass(section_model, BaseModel)
    info = section_model.model_fields[name]
    # The field's type with its constraints, built at run time (so typed as Any).
    field_type: Any = Annotated[info.annotation, info]
    return TypeAdapter(field_type)


# Override values are checked strictly (no "3000" for an int, no 1 for a bool): they come
# from JSON, which has real types, and a PATCH that sends the wrong type should say so.
WRITABLE_ADAPTERS = {dotted: _writable_adapter(dotted) for dotted in USER_WRITABLE_FIELDS}
