"""mytty-agent-hook: stdlib + core + protocol only (it runs on every agent tool call).

Public API (for the controller, the e2e stand-in agents and tests):

- ``mytty.hook.adapt.adapt(provider, payload, *, surface_id, occurred_at) -> AgentEvent | None``
- ``mytty.hook.adapt.map_hook_payload(provider, payload) -> HookMapping | None``
- ``mytty.hook.adapters.neutral_reply(provider, payload) -> bytes | None``
- ``mytty.hook.main.main(argv=None) -> int`` (the ``mytty-agent-hook`` console script)
- ``mytty.core.hook_launcher.render_launcher(python_executable, package_parent) -> str``

Modules on the helper's start-up path avoid ``from __future__ import annotations`` and
anything that imports ``dataclasses``/``typing``/``datetime``: each costs measurable time on
every tool call. This package's ``__init__`` therefore imports nothing.
"""
