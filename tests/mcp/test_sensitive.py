"""Issue 11 §3: the builtin files written through MCP's ``memory`` tool hold no card number."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")

from memvault import Vault, VaultConfig
from tests.mcp.test_server import call, in_process

CARD = "4111 1111 1111 1111"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_card_written_through_mcp_is_redacted_in_the_file(config: VaultConfig) -> None:
    with Vault(config=config) as vault:
        async with in_process(vault, "alice", config.home) as session:
            noted = await call(
                session, "memory", {"target": "user", "action": "add", "content": f"card {CARD}"}
            )
            assert noted["success"] is True and CARD not in str(noted)
        on_disk = (config.home / "users" / "alice" / "USER.md").read_text()
        assert on_disk.strip() == "card [bank_card#1]"
