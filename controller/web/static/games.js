// The Other games page: the companion games and their seat ranges.
import { esc } from "/static/live.js";

fetch("/api/games").then((r) => r.json()).then((games) => {
  document.getElementById("games").innerHTML = games.map((g) => `<div class="panel"><h2>${esc(g.name)}</h2>
    <p>${esc(g.summary || "")}</p><p class="muted">${g.seats ? g.seats[0] + "-" + g.seats[1] + " players" : ""}</p>
    <span class="badge">${esc(g.status)}</span></div>`).join("");
});
