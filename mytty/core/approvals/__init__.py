"""Approvals: an agent's permission request, the rules that decide it, who may answer it.

Pure, like the rest of :mod:`mytty.core`: :mod:`.model` (a request and its life), :mod:`.glob`
(the rules' patterns), :mod:`.rules` (the matcher), :mod:`.access` (who may answer),
:mod:`.dialog` (reading an agent's own dialog off its screen, and the keys that answer it),
:mod:`.propose` (the narrowest rule for ``mytty approve --always``), :mod:`.book` (the requests
the controller knows). The controller's side is :mod:`mytty.daemon.approvals`.
"""
