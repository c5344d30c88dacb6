"""The memory providers (seed 003's contract, ``agent.provider``): the builtin USER.md /
MEMORY.md files (``builtin``, their format in ``files``, extracted facts mirrored into
them in ``learned_files``), memvault's own vault (``vault``), the profile facts
(``facts``) and a Hindsight server (``hindsight``, its connection in ``hindsight_conn``).
"""
