"""A five-minute tour of fsmnet: compile, prove, refute, decide, run.

Run it from the repository root:  python examples/tour.py
"""

import numpy as np

import fsmnet
from fsmnet.decide.expressivity import expressivity
from fsmnet.gpu import evaluate
from fsmnet.proofs.verifier import verify

# 1. An automaton: a built-in family (or a JSON/YAML spec file, see docs/spec-format.md).
automaton = fsmnet.load("modadd:5")
print(automaton)

# 2. Compile it into exact weights for two very different architectures.
bilinear = fsmnet.compile(automaton, "bilinear-full")
cascade = fsmnet.compile(automaton, "minmax-cascade")
print(bilinear)
print(cascade)

# 3. Prove each equal to the automaton on every word of every length.
for net in (bilinear, cascade):
    result = verify(automaton, net)
    print(f"{net.arch}: {result.verdict} ({result.method})")

# 4. Break a weight: the verifier refutes it with a shortest, confirmed word.
w = np.array(bilinear.params["W"])
w[:, :, 1] = np.eye(5)  # symbol "1" now does nothing
broken = verify(automaton, bilinear.with_params(W=w))
print(f"broken net: {broken.verdict}, counterexample {broken.counterexample}")

# 5. Which architecture classes can track it at all?  (witnesses re-checkable)
for row in expressivity(automaton, ["bilinear-r2", "bilinear-real-diag", "minmax-scalar"]):
    print(f"{row.arch:20} {row.verdict:10} {row.reason[:70]}")

# 6. Run the network on ten million symbols and compare with the automaton.
word = np.random.default_rng(0).integers(0, 5, 10_000_000).astype(np.uint8)
want = evaluate(automaton, word, outputs="all")
got = evaluate(bilinear, word, outputs="all")
labels = np.array(bilinear.labels)[got.outputs]
accuracy = float(np.mean(labels == np.array(automaton.labels)[want.outputs]))
print(f"10^7 symbols: accuracy {accuracy}, {got.seconds:.2f} s on {got.backend} ({got.path})")
