// The statistics page: players across every stored match.
import { Live, esc } from "/static/live.js";
// Whole milliseconds: the pads and the camera measure to a few ms, not to a thousandth.
const whole = (x) => `${Math.round(x)} ms`;
const COLUMNS = [["matches", "Matches"], ["wins", "Wins"], ["cards", "Cards won"],
  ["true_colour", "Reaction, figure in its own colour"], ["wrong_colour", "Reaction, figure in another colour"],
  ["wrong_grabs", "Wrong grabs"], ["anticipations", "Too early"]];
function cell(value) {
  if (value == null || typeof value !== "object") return esc(value);
  if (value.median_ms == null) return "–";
  return `${whole(value.median_ms)} <span class="muted">(best ${whole(value.best_ms)}, ${value.n} ${value.n === 1 ? "card" : "cards"})</span>`;
}
async function load() {
  const data = await (await fetch("/api/stats")).json();
  const players = Object.entries(data.players);
  document.getElementById("stats").innerHTML = !players.length ? '<tbody><tr><td class="muted">No matches yet.</td></tr></tbody>'
    : `<thead><tr><th>Player</th>${COLUMNS.map(([, h]) => `<th>${h}</th>`).join("")}</tr></thead><tbody>` +
      players.map(([p, s]) => `<tr><td data-label="Player">${esc(p)}</td>${COLUMNS.map(([k, h]) => `<td data-label="${h}"><span>${cell(s[k])}</span></td>`).join("")}</tr>`).join("") + "</tbody>";
}
load(); Live.on((s) => { if (s.phase === "ended") load(); });
