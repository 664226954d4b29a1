"""Slash commands, one cog per area: thin, they parse options, call a service and render."""
