"""The box at the table: :class:`~controller.box.box.Box` and its rooms (menu, call window, handover, gestures), tags, the kiosk and power-off."""
