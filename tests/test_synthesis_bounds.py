"""Bounded synthesis (Z3) and the quantitative lower bounds of the theorems."""

from fractions import Fraction

import fsmnet
from fsmnet.decide.bounds import (
    alternations,
    diagonal_channels_lower_bound,
    scalar_cascade_levels_lower_bound,
)
from fsmnet.decide.synthesis import real_diagonal_counter, rotation_counter


def test_no_one_channel_real_diagonal_net_counts_mod_3() -> None:
    assert real_diagonal_counter(3, channels=1).status == "impossible"


def test_one_channel_counts_mod_2_and_the_model_really_works() -> None:
    result = real_diagonal_counter(2, channels=1, length=6)
    assert result.status == "found"
    v = {k: Fraction(x) for k, x in result.model.items()}
    d, h0 = v.get("d0", Fraction(0)), v.get("h0_0", Fraction(0))
    r = [v.get("r0_0", Fraction(0)), v.get("r1_0", Fraction(0))]
    for n in range(10):  # independent re-check of the model, beyond the searched length
        h = d**n * h0
        scores = [r[0] * h, r[1] * h]
        assert scores[n % 2] > scores[1 - n % 2]


def test_found_matrix_of_order_3_counts_mod_3_for_every_length() -> None:
    result = rotation_counter(3)
    assert result.status == "found"
    v = {k: Fraction(x) for k, x in result.model.items()}
    m = [[v["a"], v["b"]], [v["c"], v["e"]]]

    def mul(x, y):
        return [[sum(x[i][k] * y[k][j] for k in range(2)) for j in range(2)] for i in range(2)]

    cube = mul(mul(m, m), m)
    assert cube == [[1, 0], [0, 1]] and m != [[1, 0], [0, 1]]
    h = [Fraction(1), Fraction(0)]
    r = [[v.get(f"r{k}_{i}", Fraction(0)) for i in range(2)] for k in range(3)]
    for n in range(3):  # M^3 = I makes these three cases all cases
        scores = [r[k][0] * h[0] + r[k][1] * h[1] for k in range(3)]
        assert max(range(3), key=lambda k: scores[k]) == n
        assert sorted(scores)[-1] > sorted(scores)[-2]
        h = [m[0][0] * h[0] + m[0][1] * h[1], m[1][0] * h[0] + m[1][1] * h[1]]


def test_alternations_counts_changes_within_a_pair() -> None:
    assert alternations([0, 1, 2, 0, 1, 0], (0, 1)) == 4  # 0 1 0 1 0, by hand


def test_parity_needs_a_channel_per_sign_change() -> None:
    # Parity alternates at every step: up to length L, L sign changes, so H >= L + 1
    # (Descartes' rule of signs for exponential sums).
    assert diagonal_channels_lower_bound(fsmnet.load("parity"), 12, positive=True) == 13


def test_real_diagonal_bound_is_trivial_for_parity() -> None:
    # Parity's group has exponent 2: real-diagonal nets track it with one channel.
    assert diagonal_channels_lower_bound(fsmnet.load("parity"), 12, positive=False) == 1


def test_scalar_cascade_levels_bound() -> None:
    # Flip-flop: every element is idempotent (index 1), by hand from set/reset/read.
    assert scalar_cascade_levels_lower_bound(fsmnet.load("flipflop")) == 1
    # "contains ab": compare with the largest index over a brute-force closure of
    # all words up to length 5 (enough to reach every element of this small monoid).
    a = fsmnet.load("starfree").minimal()
    import itertools

    maps = {tuple(int(a.run(w, start=q)) for q in range(a.n_states))
            for n in range(1, 6) for w in itertools.product(range(a.n_symbols), repeat=n)}

    def index(x):
        seen, cur, i = {}, x, 1
        while cur not in seen:
            seen[cur] = i
            cur = tuple(x[c] for c in cur)
            i += 1
        return seen[cur]

    assert scalar_cascade_levels_lower_bound(a) == max(index(x) for x in maps)
