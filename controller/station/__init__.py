"""The box as a station on an MQTT broker: its link, its commands, Home Assistant, the teacher's page.

See docs/stations.md for the topics and their JSON.
"""

from controller.station.link import StationCommand, StationLink

__all__ = ["StationCommand", "StationLink"]
