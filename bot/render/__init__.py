"""Every message, picture and button the bot sends is built here (a `Reply` of one `Card`), so
that numbers, colours and dice read the same everywhere. Nothing here sends or reads anything."""
