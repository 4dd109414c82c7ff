# The pixel ring for the die puck's firmware under MicroPython's unix port: it keeps the last frame.
class NeoPixel:
    def __init__(self, pin, count):
        self.n = count
        self._pixels = [(0, 0, 0)] * count

    def __setitem__(self, index, rgb):
        self._pixels[index] = rgb

    def __getitem__(self, index):
        return self._pixels[index]

    def write(self):
        pass
