"""The namespaces ``Vault`` exposes beside its memory calls, one module each:
``vault.workspace`` (state cards and the task board), ``vault.entities`` (the entity
graph), ``vault.reveal`` (secrets, grants, the audit log), ``vault.review`` (the
quarantine queue), ``vault.decisions``, ``vault.learning``, ``vault.admin`` and
``vault.model_view`` (what of the stored memories a door that lists them may show a model).

A new capability gets a namespace of its own here rather than more methods on ``Vault``.
``deprecated`` keeps the names ``Vault`` promised before, as thin warning aliases.
"""
