"""Testing tools for users and for fsmnet's own tests: fuzzing and Hypothesis strategies."""
