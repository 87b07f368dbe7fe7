"""Algebra of automata: transition and syntactic monoids, Green structure, groups.

Submodules are imported on demand so that ``import fsmnet.algebra.groups``
does not pull in libsemigroups.
"""
