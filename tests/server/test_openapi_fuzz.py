"""Property-based fuzzing of the whole API from its own OpenAPI document.

Schemathesis generates requests (valid and invalid) for every operation of
``/openapi.json`` and sends them to a real server on loopback with a user key. No
response may be a 5xx, and every response must match the schema the API publishes
for it (status code, content type, body). Bounded: ``MAX_EXAMPLES`` per operation.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.transport.requests import ManagedCookiesSession

from memvault import VaultConfig
from memvault.config import LLMConfig
from tests.fakes.openai_chat import FakeChatServer, Reply
from tests.gateway_server import Live

MAX_EXAMPLES = 15
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    ignored_auth,
]


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx: Any, value: Any) -> bytes:
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else b""


@pytest.fixture
def gateway_config(config: VaultConfig) -> Iterator[VaultConfig]:
    with FakeChatServer([Reply.text("an answer")] * 10_000) as llm:
        llm_config = LLMConfig(base_url=llm.base_url, api_key="test", model="fake")
        yield config.model_copy(update={"llm": llm_config})


def test_api_conforms_to_its_schema(live: Live) -> None:
    headers = {"Authorization": f"Bearer {live.alice}"}
    api = schemathesis.openapi.from_url(f"{live.url}/openapi.json", headers=headers)
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 20
    # One keep-alive session for the ~2,300 generated requests, as schemathesis' own runner keeps:
    # it drops the cookies a response sets before the next request, and the auth probes
    # (``ignored_auth``) still go out on fresh sessions without credentials. Not reading
    # proxy settings and netrc for each request is another ~1 ms a call.
    with ManagedCookiesSession() as session:
        session.trust_env = False
        for operation, mode in itertools.product(operations, GenerationMode):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(
                max_examples=MAX_EXAMPLES,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                derandomize=True,
                database=None,
            )
            def exercise(case: schemathesis.Case) -> None:
                case.call_and_validate(session=session, headers=headers, checks=CHECKS)

            try:
                exercise()
            except Unsatisfiable:
                # An operation with no inputs (e.g. /healthz) has no invalid variant.
                if mode is GenerationMode.POSITIVE:
                    raise
