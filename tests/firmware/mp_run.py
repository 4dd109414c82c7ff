"""Runs the firmware's own tests under MicroPython: ``micropython tests/firmware/mp_run.py``.

MicroPython has no pytest; this finds every ``test_`` function in the
test modules named below, runs it, and ends with pytest's closing line.
"""

import sys

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, HERE + "/../../firmware")
sys.path.insert(0, HERE)

MODULES = ("test_puck_logic", "test_board")


def main():
    passed, failed = 0, 0
    for name in MODULES:
        module = __import__(name)
        for attr in sorted(dir(module)):
            if not attr.startswith("test_"):
                continue
            try:
                getattr(module, attr)()
                passed += 1
            except Exception as error:  # report it and go on to the next test
                failed += 1
                print("FAIL %s.%s: %r" % (name, attr, error))
                sys.print_exception(error)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
