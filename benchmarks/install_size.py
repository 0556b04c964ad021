"""Installed size of hindsight in a fresh virtual environment (the README's install figures).

    python -m benchmarks.install_size [--extras base all] [--out benchmarks/results/install_size.json]

For each variant a new venv is made, hindsight is installed from this checkout
with pip (for `all`, the CPU build of torch first, as the README says), and the
venv's size is measured as `du -sm` does (allocated blocks). It downloads from
the package indexes, so it takes minutes; the venvs are removed afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import venv
from pathlib import Path
from benchmarks.harness import write_results  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TORCH_CPU = ["torch", "--index-url", "https://download.pytorch.org/whl/cpu"]


def folder_mib(folder: Path) -> float:
    return round(sum(p.lstat().st_blocks * 512 for p in folder.rglob("*") if p.is_file()) / 2**20, 1)


def measure(extra: str) -> dict:
    folder = Path(tempfile.mkdtemp(prefix=f"hindsight-install-{extra}-"))
    try:
        venv.create(folder, with_pip=True)
        pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-cache-dir"]
        empty = folder_mib(folder)
        if extra == "all":
            subprocess.run([*pip, *TORCH_CPU], check=True)
        subprocess.run([*pip, str(ROOT) if extra == "base" else f"{ROOT}[{extra}]"], check=True)
        return {"venv_mib": folder_mib(folder), "empty_venv_mib": empty}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--extras", nargs="+", default=["base", "all"])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "install_size.json")
    args = parser.parse_args(argv)
    report = {"variants": {}}
    for extra in args.extras:
        report["variants"][extra] = measure(extra)
        print(extra, report["variants"][extra], flush=True)
    report = write_results(args.out, report, __file__, argv)
    print("wrote", args.out)
    return report


if __name__ == "__main__":
    main()
