"""The package's version, in one place: setup.cfg reads it, the root re-exports it, and every
module that records it imports it from here (never from the root, which would tie each layer
to the root's lazy Python API)."""

__version__ = "0.1.0"
