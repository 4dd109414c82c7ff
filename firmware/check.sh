#!/bin/sh
# Type-checks the firmware against MicroPython's RP2 stubs with mypy.
# The stubs stand in for the standard library, so they live in a venv of
# their own (firmware/.typecheck), never in the project's.
set -e
cd "$(dirname "$0")"
if [ ! -x .typecheck/bin/mypy ]; then
    python3 -m venv .typecheck
    .typecheck/bin/pip install -q 'mypy>=1.10'
    .typecheck/bin/pip install -q --target .typecheck/stubs 'micropython-rp2-stubs>=1.23'
fi
MYPYPATH=.typecheck/stubs exec .typecheck/bin/mypy --config-file mypy.ini \
    --custom-typeshed-dir .typecheck/stubs --cache-dir .typecheck/cache main.py puck
