#!/usr/bin/env python3
# Usage: python3 examples/ponder_latency.py target/release/pbrain-rensa [THREADS]
# Time from a TURN line to the reply while the engine ponders, with `timeout_turn 0` (the reply is
# then the precomputed fallback, so the time is what stopping the ponder costs).
import subprocess, sys, time, random
eng = sys.argv[1]
threads = sys.argv[2] if len(sys.argv) > 2 else "1"
random.seed(86)
lat = []
for game in range(10):
    p = subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    def send(l): p.stdin.write(l + "\n"); p.stdin.flush()
    def recv(): return p.stdout.readline().strip()
    send("START 15"); assert recv() == "OK"
    send(f"INFO thread_num {threads}"); send("INFO pondering 1")
    taken = set()
    send("INFO timeout_turn 200"); send("BEGIN"); m = recv(); taken.add(m)
    for k in range(6):
        # the opponent's move: a random empty cell near the centre
        while True:
            c = f"{random.randint(4,10)},{random.randint(4,10)}"
            if c not in taken: break
        taken.add(c)
        time.sleep(0.3)  # let it ponder
        zero = k % 2 == 1
        if zero: send("INFO timeout_turn 0")
        t = time.perf_counter(); send(f"TURN {c}"); m = recv(); dt = (time.perf_counter() - t) * 1000
        if zero:
            lat.append(dt); send("INFO timeout_turn 200")
        if m.startswith("ERROR") or m.startswith("MESSAGE"):
            break
        assert "," in m and " " not in m, m
        taken.add(m)
    send("END"); p.wait(timeout=5)
lat.sort()
print(f"threads {threads}: {len(lat)} replies, median {lat[len(lat)//2]:.1f} ms, max {lat[-1]:.1f} ms")
