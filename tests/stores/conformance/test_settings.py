"""``VaultSettings``: what the whole vault records about itself (its embedding model),
the first writer's value kept unless replaced, and the models its vectors are of."""

from __future__ import annotations

from memvault import Store
from memvault.stores.protocols import VaultSettings
from memvault.stores.values import VectorItem

from .support import entry, put, vec


def test_every_backend_keeps_the_vaults_settings(store: Store) -> None:
    assert isinstance(store, VaultSettings)
    assert store.get_setting("embedding.model") is None


def test_the_first_value_is_kept_unless_replaced(store: Store) -> None:
    assert store.put_setting("embedding.model", "model-a", replace=False) == "model-a"
    # A second process racing to record another model is told the first one's.
    assert store.put_setting("embedding.model", "model-b", replace=False) == "model-a"
    assert store.get_setting("embedding.model") == "model-a"
    assert store.put_setting("embedding.model", "model-b", replace=True) == "model-b"
    assert store.get_setting("embedding.model") == "model-b"
    assert store.get_setting("another") is None


def test_settings_belong_to_the_vault_not_to_a_user(store: Store) -> None:
    put(store, entry("e1", "one", user="alice"))
    store.put_setting("embedding.model", "model-a", replace=False)
    store.erase_user("alice")
    assert store.get_setting("embedding.model") == "model-a"


def test_the_stored_vectors_name_their_models_most_first(store: Store) -> None:
    assert store.stored_vector_models() == []
    e1, e2, e3 = put(
        store, entry("e1", "one"), entry("e2", "two"), entry("e3", "three", user="bob")
    )
    store.put_vectors("alice", "m-small", [VectorItem("e1", e1.updated_at, vec(1, 0))])
    store.put_vectors("alice", "m-big", [VectorItem("e2", e2.updated_at, vec(0, 1))])
    store.put_vectors("bob", "m-big", [VectorItem("e3", e3.updated_at, vec(1, 1))])
    assert store.stored_vector_models() == ["m-big", "m-small"]
