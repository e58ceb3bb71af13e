#!/usr/bin/env python3
"""Random short openings for generating training games (not balanced: see gen_openings.rs for
the shipped, balanced sets).

    python3 examples/random_openings.py COUNT [SEED] > pool.txt

Writes COUNT openings of 3 to 5 stones in the referee's offset notation (pairs dx,dy from the
centre; black first, alternating): the first stone on the centre, every further one within two
cells (king distance) of an earlier one and within three of the centre; no colour has three
stones in any five-cell window free of the other colour (no threes, so no fouls and no forced
replies), and no two openings are the same under the eight board symmetries. The default seed
is 4101 (the forty-first session's renju training games).
"""
import random
import sys

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def no_threes(stones):
    colour = {s: i % 2 for i, s in enumerate(stones)}
    for (x, y) in colour:
        for dx, dy in DIRECTIONS:
            for start in range(-4, 1):
                window = [colour.get((x + (start + k) * dx, y + (start + k) * dy)) for k in range(5)]
                for c in (0, 1):
                    if window.count(c) >= 3 and window.count(1 - c) == 0:
                        return False
    return True


def canonical(stones):
    forms = []
    for t in range(8):
        moved = []
        for (x, y) in stones:
            a, b = (-x if t & 1 else x), (-y if t & 2 else y)
            moved.append((b, a) if t & 4 else (a, b))
        forms.append((tuple(sorted(moved[0::2])), tuple(sorted(moved[1::2]))))
    return min(forms)


def main():
    count = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 4101
    rng = random.Random(seed)
    seen, openings = set(), []
    while len(openings) < count:
        n = rng.randint(3, 5)
        stones = [(0, 0)]
        while len(stones) < n:
            c = (rng.randint(-3, 3), rng.randint(-3, 3))
            if c in stones or min(max(abs(c[0] - a), abs(c[1] - b)) for a, b in stones) > 2:
                continue
            stones.append(c)
        if not no_threes(stones):
            continue
        key = canonical(stones)
        if key in seen:
            continue
        seen.add(key)
        openings.append(stones)
    print(f"# random 3-5 stone openings (random_openings.py {count} {seed})")
    for stones in openings:
        print(", ".join(f"{x},{y}" for x, y in stones))


if __name__ == "__main__":
    main()
