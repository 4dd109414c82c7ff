"""The box daemon's local control socket and what its ops do: the only way in for the family's page (controller.home)."""
