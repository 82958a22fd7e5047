// The statistics page: players across every stored match.
import { Live, esc } from "/static/live.js";
async function load() {
  const data = await (await fetch("/api/stats")).json();
  const ms = (x) => x.median_ms == null ? "–" : `${x.median_ms} ms <span class="muted">(best ${x.best_ms}, n=${x.n})</span>`;
  document.getElementById("stats").innerHTML = "<tr><th>player</th><th>matches</th><th>wins</th><th>cards</th><th>true-colour median</th><th>wrong-colour median</th><th>wrong grabs</th><th>anticipations</th></tr>" +
    Object.entries(data.players).map(([p, s]) => `<tr><td>${esc(p)}</td><td>${s.matches}</td><td>${s.wins}</td><td>${s.cards}</td><td>${ms(s.true_colour)}</td><td>${ms(s.wrong_colour)}</td><td>${s.wrong_grabs}</td><td>${s.anticipations}</td></tr>`).join("");
}
load(); Live.on((s) => { if (s.phase === "ended") load(); });
