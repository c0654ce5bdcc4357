"""What every e2e script shares: one JSON object a line on stdout for the Go
test to read, errors as {"type", "message"}, and a handshake that waits for
the test to say a step may go on (after it killed or restarted a process)."""

import json
import sys


def emit(**kv):
  print(json.dumps(kv), flush=True)


def err(e):
  return {"type": type(e).__name__, "message": str(e)[:500]}


def wait_for_go(step):
  emit(waiting=step)
  line = sys.stdin.readline().strip()
  if line != step:
    emit(fatal=f"expected {step!r} on stdin, got {line!r}")
    sys.exit(1)
