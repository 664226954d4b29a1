// The live board: the server sends the board's new lines (server-sent events) after each
// change; this puts them in place. The page reads the same without it, as of its loading.
"use strict";
(function () {
  const board = document.querySelector("[data-live]");
  const status = document.getElementById("live-status");
  if (!board || !window.EventSource) return;
  const body = board.querySelector(".board-body");
  const source = new EventSource(board.dataset.live);
  const say = (text) => { status.textContent = text; };
  source.addEventListener("board", (event) => {
    body.innerHTML = event.data; // the server's own HTML, every name escaped there
    board.dataset.updated = String(Date.now());
    say("Live: kept current as the table plays.");
  });
  source.addEventListener("ended", (event) => {
    source.close();
    say(event.data || "This link has ended: type /web in your Discord server for a new one.");
  });
  source.addEventListener("open", () => say("Live: kept current as the table plays."));
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) {
      say("Live updates stopped: reload the page to try again.");
    } else {
      say("Live updates paused: reconnecting…");
    }
  });
})();
