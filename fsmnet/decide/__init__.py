"""Decisions about architecture *classes*: what each can express, and the hierarchy table.

A verdict is ``possible`` (a construction compiled and was proved),
``impossible`` (a theorem of docs/theory.md, with a witness the checker
re-verifies) or ``unknown``.
"""
