"""Every embed, picture and button the bot sends is built here (a `Reply`), so that numbers,
colours and dice read the same everywhere. Nothing here sends or reads anything."""
