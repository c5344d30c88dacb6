"""The client without a key (issue 33): the error names the constructor's ``api_key=``,
which the user writes, not the ``Authorization`` header, which the client writes."""

from __future__ import annotations

import asyncio

import pytest

from memvault import AuthError
from memvault.client import AsyncClient, Client
from tests.gateway_server import Live


def test_a_client_without_a_key_is_told_to_pass_api_key(live: Live) -> None:
    with Client(live.url) as keyless, pytest.raises(AuthError) as caught:
        keyless.list()
    message = str(caught.value)
    assert "api_key=" in message and "memvault keys create" in message, message
    assert "Authorization" not in message


def test_the_async_client_says_the_same(live: Live) -> None:
    async def keyless_list() -> None:
        async with AsyncClient(live.url) as keyless:
            await keyless.list()

    with pytest.raises(AuthError, match="api_key="):
        asyncio.run(keyless_list())


def test_a_wrong_key_keeps_the_servers_word(live: Live) -> None:
    with Client(live.url, api_key="mv_not_a_key") as wrong, pytest.raises(AuthError) as caught:
        wrong.list()
    assert "api_key=" not in str(caught.value)
