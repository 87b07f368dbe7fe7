"""Proofs that a network equals an automaton, their certificates, and the checker.

:mod:`fsmnet.proofs.verifier` tries each proof method of the network's
architecture; :mod:`fsmnet.proofs.certificate` writes what it found as JSON;
:mod:`fsmnet.proofs.checker` re-verifies that JSON and imports nothing from fsmnet.
"""
