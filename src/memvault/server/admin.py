"""``/v1/keys``: API key management, for admin keys only."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from ..errors import ConfigError
from .auth import Admin, GatewayDep
from .errors import COMMON_ERRORS, FORBIDDEN, NOT_FOUND
from .keys import KeyStore
from .schemas import KeyCreated, KeyCreateRequest, KeyList
from .state import Gateway

router = APIRouter(prefix="/v1/keys", tags=["keys"], responses={**COMMON_ERRORS, **FORBIDDEN})


def _keys(gw: Gateway) -> KeyStore:
    if gw.keys is None:
        raise ConfigError("authentication is off on this server, so there are no keys")
    return gw.keys


@router.get("", response_model=KeyList)
def list_keys(_: Admin, gw: GatewayDep) -> dict[str, Any]:
    return {"keys": [r.public() for r in _keys(gw).list()]}


@router.post("", status_code=201, response_model=KeyCreated)
def create_key(body: KeyCreateRequest, _: Admin, gw: GatewayDep) -> dict[str, Any]:
    """A new key; its secret is in this response and nowhere else."""
    record, secret = _keys(gw).create(user_id=body.user_id, label=body.label, review=body.review)
    return {"key": secret, "info": record.public()}


@router.delete("/{key_id}", status_code=204, response_class=Response, responses=NOT_FOUND)
def revoke_key(key_id: str, _: Admin, gw: GatewayDep) -> Response:
    _keys(gw).revoke(key_id)
    return Response(status_code=204)
