from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.station.brokers import Broker, Watcher


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    broker = Broker(tmp_path)
    if broker.kind == "amqtt" and not Path(broker.command()[0]).exists():
        pytest.skip("no MQTT broker: install mosquitto (Debian) or the [test] extra (amqtt)")
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def watcher(broker: Broker) -> Iterator[Watcher]:
    watcher = Watcher(broker)
    yield watcher
    watcher.close()
