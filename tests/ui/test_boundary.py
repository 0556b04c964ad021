"""The inspector is an interface at the edge: the core never imports it, and it imports nothing heavy."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import hindsight_core

CORE = Path(hindsight_core.__file__).parent


def test_no_core_module_imports_the_ui():
    offenders = [p.relative_to(CORE).as_posix() for p in CORE.rglob("*.py")
                 if not p.relative_to(CORE).as_posix().startswith("ui/")
                 and re.search(r"from \.+ui\b|hindsight_core\.ui\b|import ui\b", p.read_text())]
    # the command line starts it, inside the `ui` and `serve` commands only; `hindsight serve` (remote/) mounts it
    assert sorted(offenders) == ["cli/serve.py", "remote/runner.py", "remote/service.py"]
    imports = re.findall(r"^\s*from \.+ui\S* import .*$", (CORE / "cli" / "serve.py").read_text(), re.M)
    assert sorted(imports) == ["    from ..ui.cli import run", "    from ..ui.security import is_loopback"]
    # and nothing in the core proper imports the server (the package names `HindsightClient`, loaded on first use)
    assert [p.relative_to(CORE).as_posix() for p in CORE.rglob("*.py")
            if p.relative_to(CORE).parts[0] not in ("cli", "remote", "__init__.py")
            and re.search(r"from \.+remote\b|hindsight_core\.remote\b", p.read_text())] == []


def test_importing_the_core_or_the_cli_loads_no_ui_and_the_ui_loads_no_framework():
    code = ("import sys, hindsight_core, hindsight_core.cli; assert 'hindsight_core.ui' not in sys.modules;"
            "import hindsight_core.ui; print(','.join(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'jinja2', 'flask', 'starlette', 'mcp', 'langchain', 'llama_index', 'matplotlib', 'playwright'})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == ""
