"""The table drawn by its parts, each a function over one :class:`~controller.window.drawing.layout.Layout`."""
