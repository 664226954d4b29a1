"""The data layer: one transaction per command, an event log, undo, Alembic migrations.

Imports nothing of discord.py: `python -m bot migrate` and the tests of this layer run
without it."""
