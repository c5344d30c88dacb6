"""The typed values the engine's calls return, in leaf modules anything may import.

The engine builds them, the HTTP gateway serialises them (``to_dict``) and the HTTP
client (``memvault.client``) decodes its answers into the very same classes; so they
live here, below every layer that uses them, and importing the client never loads the
engine. ``filters`` holds the other direction: the filter words the reads take, the
same for the library and the client. Each module holds the values of one concern and
imports only leaves (``model``, ``errors``, ``validation``) and its siblings.
"""
