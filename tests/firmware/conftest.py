"""The firmware's modules import as ``puck.*``, as they do on the Pico.

No ``__pycache__`` is written beside them, so ``mpremote cp -r puck`` copies
only the sources onto a Pico.
"""

import sys
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
if str(FIRMWARE) not in sys.path:
    sys.path.insert(0, str(FIRMWARE))
sys.dont_write_bytecode = True
