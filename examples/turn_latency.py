#!/usr/bin/env python3
# Usage: python3 examples/turn_latency.py target/release/pbrain-rensa [PROCESSES] [TIMEOUT_TURN_MS]
# Time from a BOARD command to the move, in fresh processes (the first move pays for the tables),
# three moves each on random 4 to 12 stone positions near the centre. Prints the median, the 99th
# percentile, the longest reply and how many replies took longer than timeout_turn. Run a CPU
# burner beside it (python3 -c 'while 1: pass' &) to see the margins on a loaded machine.
import random, subprocess, sys, time

eng = sys.argv[1]
processes = int(sys.argv[2]) if len(sys.argv) > 2 else 100
turn = int(sys.argv[3]) if len(sys.argv) > 3 else 100
random.seed(87)
lat = []
for _ in range(processes):
    p = subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    p.stdin.write(f"START 15\nINFO timeout_turn {turn}\n")
    p.stdin.flush()
    assert p.stdout.readline().strip() == "OK"
    cells = random.sample([(x, y) for x in range(4, 11) for y in range(4, 11)], 2 * random.randint(2, 6))
    board = "".join(f"{x},{y},{1 + k % 2}\n" for k, (x, y) in enumerate(cells))
    for _ in range(3):
        t = time.monotonic()
        p.stdin.write("BOARD\n" + board + "DONE\n")
        p.stdin.flush()
        p.stdout.readline()
        lat.append((time.monotonic() - t) * 1000)
    p.stdin.write("END\n")
    p.stdin.flush()
    p.wait()
lat.sort()
print(f"replies {len(lat)}, median {lat[len(lat) // 2]:.0f} ms, 99th percentile "
      f"{lat[int(len(lat) * 0.99)]:.0f} ms, longest {lat[-1]:.0f} ms, "
      f"over {turn} ms: {sum(x > turn for x in lat)}")
