"""Run argv[2:] and write "<wall ms> <peak RSS KiB> <exit status>" to argv[1].

The harness starts commands through this small process (`python -S`), not
from its own: a forked child's peak RSS includes the memory of the process it
was forked from until it execs, and the harness itself holds tens of MiB.
"""

import os
import sys
import time

out, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
elapsed = (time.perf_counter() - start) * 1000
with open(out, "w") as f:
    f.write(f"{elapsed} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
