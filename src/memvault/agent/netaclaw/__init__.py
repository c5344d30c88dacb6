"""NetaClaw (seed 002) on memvault: its existing databases imported (``rows`` reads one,
``importer`` moves its rows in) and its agent memory settings read under their own names
(``settings``). Import the submodule you need: ``settings`` is read by ``agent.stores``,
which ``importer`` uses, so this package imports none of them itself."""
