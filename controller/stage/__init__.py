"""The box's answers on its devices: the scene and shows it plays, the lights, the voice lines and what they say."""
