"""A fake USI engine for the lab's reliability tests (run as a script, no komaken import).

``python lab_fake_usi.py N [stubborn]``: answers ``usi``/``isready``, starts a ``sleep`` child
(to check that the engine's whole process group is killed), answers each ``go`` with
``bestmove resign`` — except the N-th ``go`` of its life, after which it says nothing more.
``stubborn``: it also ignores the end of its input (a hung engine that never exits by itself).
"""

import subprocess
import sys
import time

silent_at = int(sys.argv[1])
stubborn = "stubborn" in sys.argv[2:]
child = None
goes = 0


def hang() -> None:
    while True:
        time.sleep(1000)


for line in sys.stdin:
    words = line.split()
    cmd = words[0] if words else ""
    if cmd == "usi":
        print("id name fake")
        print("usiok", flush=True)
    elif cmd == "isready":
        if child is None:
            child = subprocess.Popen(["sleep", "1000"])
        print("readyok", flush=True)
    elif cmd == "go":
        goes += 1
        if goes == silent_at:
            hang()
        print("bestmove resign", flush=True)
    elif cmd == "quit":
        break
if stubborn:
    hang()
if child is not None:  # a well-behaved engine takes its helpers along when it quits
    child.kill()
