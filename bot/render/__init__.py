"""Every embed the bot sends is built here, so that numbers and colours read the same everywhere."""
