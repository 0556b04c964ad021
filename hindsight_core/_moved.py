"""Import paths from before the stage folders, kept working: each old module forwards to where its names live now.

`from hindsight_core.gate import RuleBasedGate` still gives the very same object as
`from hindsight_core.write.gate import RuleBasedGate`, with a DeprecationWarning naming the new path.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: old module -> the modules its names live in now, searched in order
MOVED: dict[str, tuple[str, ...]] = {
    "hindsight_core.answers": ("hindsight_core.session.answers",),
    "hindsight_core.audit": ("hindsight_core.safety.audit",),
    "hindsight_core.choices": ("hindsight_core.session.choices",),
    "hindsight_core.consensus": ("hindsight_core.recall.consensus",),
    "hindsight_core.consolidation": ("hindsight_core.consolidate.plan",),
    "hindsight_core.context": ("hindsight_core.session.context",),
    "hindsight_core.cues": ("hindsight_core.language.cues",),
    "hindsight_core.embedder": ("hindsight_core.embed.embedder",),
    "hindsight_core.entities": ("hindsight_core.language.entities",),
    "hindsight_core.forgetting": ("hindsight_core.forget.plan",),
    "hindsight_core.formatting": ("hindsight_core.recall.formatting",),
    "hindsight_core.gate": ("hindsight_core.write.gate",),
    "hindsight_core.keyed": ("hindsight_core.session.keyed",),
    "hindsight_core.multilingual": ("hindsight_core.embed.multilingual",),
    "hindsight_core.outcome": ("hindsight_core.session.outcome",),
    "hindsight_core.preparing": ("hindsight_core.write.preparing",),
    "hindsight_core.query_cache": ("hindsight_core.embed.query_cache",),
    "hindsight_core.summary": ("hindsight_core.consolidate.summary",),
    "hindsight_core.text": ("hindsight_core.language.text",),
    "hindsight_core.time_rules": ("hindsight_core.language.time_rules",),
    "hindsight_core.timeparse": ("hindsight_core.language.timeparse",),
    "hindsight_core.timerange": ("hindsight_core.language.timerange",),
    "hindsight_core.tokens": ("hindsight_core.language.tokens",),
    "hindsight_core.turns": ("hindsight_core.session.turns",),
    "hindsight_core.validation": ("hindsight_core.write.validation",),
    "hindsight_core.write_queue": ("hindsight_core.session.write_queue",),
    "hindsight_core.writing": ("hindsight_core.write.writing",),
    "hindsight_core.semantic": ("hindsight_core.write.rules", "hindsight_core.consolidate.groups",
                                "hindsight_core.consolidate.summary", "hindsight_core.consolidate.plan"),
}


class _Forwarder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and makes a module whose names are looked up in the new ones."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.util.spec_from_loader(name, self) if name in MOVED else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        warnings.warn(f"{spec.name} moved: import from {' or '.join(MOVED[spec.name])}", DeprecationWarning,
                      stacklevel=2)
        return _forwarding_module(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the names are looked up on use."""


def _forwarding_module(old: str) -> types.ModuleType:
    homes = MOVED[old]
    modules = [importlib.import_module(home) for home in homes]
    module = types.ModuleType(old, f"Moved to {', '.join(homes)}.")

    def forward(name: str) -> object:
        for home in modules:
            if hasattr(home, name):
                return getattr(home, name)
        raise AttributeError(f"module {old!r} (moved to {', '.join(homes)}) has no attribute {name!r}")

    module.__getattr__ = forward  # type: ignore[method-assign]
    module.__dir__ = lambda: sorted({n for home in modules for n in dir(home)})  # type: ignore[method-assign]
    return module


def install(package: types.ModuleType) -> None:
    """Put the forwarder on `sys.meta_path` once.

    An old module named like one of the package's own names (`hindsight_core.audit`, the module, beside
    `hindsight_core.audit`, the function) is registered at once: importing it later must not rebind the name.
    """
    if any(isinstance(finder, _Forwarder) for finder in sys.meta_path):
        return
    for old in MOVED:
        parent, leaf = old.rsplit(".", 1)
        if parent == package.__name__ and hasattr(package, leaf):
            sys.modules[old] = _forwarding_module(old)
    sys.meta_path.append(_Forwarder())
