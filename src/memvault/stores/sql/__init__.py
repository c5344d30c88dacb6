"""The SQL of every concern, written once for the three SQL backends.

Each module is one concern's statements and its protocol's methods over a backend's
runner and dialect (``runner``): ``entries``, ``audit`` (originals, reveal, the audit
log, erasure), ``versions``, ``profiles``, ``workspace``, ``graph``, ``stats``,
``usage``, and ``migrations`` (the registry every backend's schema uses). A backend
package adds its connection, its dialect, and what only it does.
"""
