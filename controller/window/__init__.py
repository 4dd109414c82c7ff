"""The table window: ``gamebox sim`` (play at a virtual table) and ``gamebox display`` (a kiosk's status screen).

Both draw a :class:`~controller.window.view.TableView`, a plain snapshot of
what is on the table, with one renderer. pygame is imported only by the
modules that draw or open windows (``render``, ``screen``, ``controls``,
``sim``, ``display``), so importing this package, or the view, stays light.
"""

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame's greeting has no place in a command's output
