"""The engine: the write path, transfer, review, reveal, decisions, history, entities,
store migration and the views every call is checked into. ``vault.Vault`` wires them."""
