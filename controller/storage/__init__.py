"""What the box keeps: the journal of games and its durability on an SD card."""
