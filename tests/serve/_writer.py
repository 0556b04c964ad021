"""A separate Python process using `HindsightClient`: writes N memories, printing each id once acknowledged.

    python -m tests.serve._writer URL USER N [PAUSE]
Each line is `<id>` after the server acknowledged that write; a failure prints `ERROR <class>: <message>` and stops.
"""

from __future__ import annotations

import sys
import time

from hindsight_core import HindsightError
from hindsight_core.remote import HindsightClient


def main() -> None:
    url, user, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    with HindsightClient(url, caller="writer") as client:
        for i in range(count):
            try:
                result = client.write(f"Fact number {i} from {user}: the locker code is {1000 + i}.", user_id=user,
                                      force=True)
            except HindsightError as exc:
                print(f"ERROR {type(exc).__name__}: {exc}", flush=True)
                return
            print(result.record.id, flush=True)
            time.sleep(pause)


if __name__ == "__main__":
    main()
