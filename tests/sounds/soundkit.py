"""Load the scripts of ``sounds/`` for the tests (``sounds/`` is a folder of assets, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SOUNDS = ROOT / "sounds"
VOICE = SOUNDS / "voice"


def load(path: Path, name: str) -> ModuleType:
    """Import the script at ``path`` as module ``name`` (once), with ``sounds/`` importable beside it."""
    if name in sys.modules:
        return sys.modules[name]
    if str(SOUNDS) not in sys.path:
        sys.path.insert(0, str(SOUNDS))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


wavtools = load(SOUNDS / "wavtools.py", "wavtools")
generate = load(SOUNDS / "generate.py", "gamebox_sounds_generate")
render = load(VOICE / "render.py", "gamebox_voice_render")
