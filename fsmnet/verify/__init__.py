"""Verification: proofs, certificates, counterexamples, fuzzing, expressivity."""
