"""The campaign page (issue 18): a read-only web view of one server's characters, their
history and odds, and its live status boards, opened with a link made by `/web`."""
