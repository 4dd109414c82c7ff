"""The family's page: ``gamebox home`` (its own process) and the box daemon's local control socket it talks to."""
