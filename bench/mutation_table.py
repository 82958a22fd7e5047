"""The mutation testing table per module, from mutmut's results (after `make mutants`).

Run: .venv/bin/python bench/mutation_table.py [--survivors]

Reads `mutmut results --all true` (the state `mutmut run` keeps in mutants/)
and prints, per mutated module: mutants, killed, survived, no tests (no test
runs the mutated function), timeouts and not yet checked. `--survivors` lists
the surviving mutants' names (`mutmut show NAME` prints one's diff);
docs/mutation.md says why each remaining one is equivalent.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

COLUMNS = ["killed", "survived", "no tests", "timeout", "not checked"]


def results() -> list[tuple[str, str]]:
    mutmut = Path(sys.executable).with_name("mutmut")
    out = subprocess.run([str(mutmut), "results", "--all", "true"], capture_output=True,
                         text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep:
            rows.append((name, status))
    return rows


def module_of(name: str) -> str:
    """controller.pads.protocol.xǁFrameǁfields__mutmut_3 -> controller/pads/protocol.py"""
    return re.split(r"\.x[_ǁ]", name, maxsplit=1)[0].replace(".", "/") + ".py"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    args = ap.parse_args()
    table: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: dict[str, list[str]] = defaultdict(list)
    for name, status in results():
        mod = module_of(name)
        table[mod][status] += 1
        if status == "survived":
            survivors[mod].append(name)
    print(f"| module | mutants | {' | '.join(COLUMNS)} | other |")
    print("|---|---:|" + "---:|" * (len(COLUMNS) + 1))
    for mod in sorted(table):
        counts = table[mod]
        other = sum(v for k, v in counts.items() if k not in COLUMNS)
        cells = " | ".join(str(counts[c]) for c in COLUMNS)
        print(f"| {mod} | {sum(counts.values())} | {cells} | {other} |")
    if args.survivors:
        for mod in sorted(survivors):
            print(f"\n{mod}:")
            for name in survivors[mod]:
                print(f"  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
