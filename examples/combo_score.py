"""The engine's built-in pattern weights and the cell score of a combination of four line
classes, shared by the fitting scripts (`fit_choices.py`, `fit_policy.py`)."""

# The built-in weights (`board::pattern`, `eval::INDICATORS`).
PATTERN_SCORE = [0, 0, 2, 5, 9, 23, 0, 105, 419, 2000]
THREAT_BONUS = [0, 4, 0, 11, 55, 51, 19, 968, 343, 0]
INDICATORS = [87, 53, 81, -154, -185, 176, 515, 40, -8, -69, 26, 191, 187, -206, -2, 153]


def combo_threat_and_score(m):
    """The engine's threat class and cell score of the combination with multiset index m (four
    line classes as base-10 digits), as `pattern::combine` computes them with the built-in
    weights."""
    p = [m // 10 ** k % 10 for k in range(4)]
    n = lambda *cls: sum(x in cls for x in p)
    fives, flex4, fours, flex3, block3, flex2 = n(9), n(8), n(7, 8), n(6), n(5), n(4)
    t = (9 if fives else 8 if flex4 or fours >= 2 else 7 if fours == 1 and flex3 else
         6 if fours == 1 else 5 if flex3 >= 2 else 4 if flex3 == 1 else
         3 if block3 and flex2 else 2 if block3 or flex2 >= 2 else 1 if any(p) else 0)
    return t, sum(PATTERN_SCORE[x] for x in p) + THREAT_BONUS[t]
