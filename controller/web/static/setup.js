// The setup page: players and rules (staff), hardware health, calibration, camera accuracy, privacy.
// A refused setup is explained beside the field it is about (the API names it).
import { Live, api, esc } from "/static/live.js";
const $ = (id) => document.getElementById(id);
const PART = { pads: "Pads", camera: "Camera", disk: "Disk" };
const LEVEL = { ok: "working", degraded: "degraded", down: "not working", off: "off" };
const FIELDS = ["seats", "target", "variant"];
// The banner names a refused field by its label on this page, not by the API's key.
const LABEL = { seats: "Players", target: "Cards to win", variant: "Variant" };
let filled = false;
Live.on((s) => {
  if (!filled) { $("seats").value = s.seats.join(", "); $("target").value = s.target; $("variant").value = s.variant; filled = true; }
  // In simulation the last seats are computer players: say which, so a new list of names
  // does not surprise anyone (the page has no other way to tell a bot's seat from a person's).
  const nb = s.sim ? s.bots.length : 0;
  $("seats-bots").hidden = !nb;
  if (nb) $("seats-bots").textContent = nb === s.seats.length
    ? "Simulation: every seat is a computer player."
    : `Simulation: the last ${nb === 1 ? "seat is a computer player" : nb + " seats are computer players"} (now ${s.bots.join(", ")}); the others are people at the table.`;
  const part = (name, h) => `<tr><td data-label="Part">${PART[name]}</td><td data-label="State" class="level-${h.level}">${esc(LEVEL[h.level] || h.level)}</td><td data-label="Detail">${esc(h.message || "–")}</td></tr>`;
  const rows = ["pads", "camera", "disk"].map((n) => part(n, s.health[n]));
  rows.push(`<tr><td data-label="Part">Mode</td><td data-label="State" colspan="2">${s.sim ? "simulation" : "hardware"}</td></tr>`);
  $("health").innerHTML = "<tbody>" + rows.join("") + "</tbody>";
  const e = s.evidence;
  $("privacy").innerHTML = !e.enabled ? "Evidence recording is <b>off</b>: no camera frames are kept; verdicts come from the pads."
    : `Camera evidence (short clips around each grab) is kept for <b>${e.retention_days} days</b>, at most <b>${e.retention_mb} MB</b>, oldest first; disputed rounds are kept until released. Recording now: <b>${e.recording ? "yes" : "no"}</b>.`;
});
fetch("/api/calibration").then((r) => r.json()).then((c) => {
  $("calib").textContent = c.detail + (c.file ? ` (${c.file})` : "");
  if (c.preview_url) { $("preview").src = c.preview_url; $("preview").hidden = false; }
});
// The camera measured on this table's own recorded rounds (knapp vision eval CLIPS --save):
// the figures a café can trust, and how many rounds they rest on.
fetch("/api/camera/accuracy").then((r) => r.json()).then((a) => {
  const pct = (x) => (x === null || x === undefined ? "n/a" : (100 * x).toFixed(1) + " %");
  const where = a.folder ? ` Clips: ${esc(a.folder)}.` : "";
  $("accuracy").innerHTML = !a.measured ? esc(a.detail) + where
    : `Seat named right: <b>${pct(a.seat)}</b>; table asked: <b>${pct(a.asked)}</b>; lift within one frame of the pads: <b>${pct(a.lift_within_frame)}</b>; wrong seat named with confidence: <b>${a.wrong_confident}</b>. `
      + `<span id="accuracy-basis">From ${a.rounds} ${a.rounds === 1 ? "round" : "rounds"} (${a.grabs} ${a.grabs === 1 ? "grab" : "grabs"}).</span> ${esc(a.detail)}.${where}`;
});
$("cb").checked = localStorage.getItem("knapp-cb") === "1";
$("cb").onchange = () => localStorage.setItem("knapp-cb", $("cb").checked ? "1" : "0");
function say(text, bad) { $("msg").innerHTML = `<div class="banner ${bad ? "error" : ""}">${esc(text)}</div>`; }
function clearFields() {
  for (const f of FIELDS) { $(f + "-err").textContent = ""; $(f).removeAttribute("aria-invalid"); }
}
// Each refused field gets its sentence under it ("at least 2 players"); the banner says why too.
function showFields(detail) {
  let first = null;
  const said = [];
  for (const d of detail) {
    const f = Array.isArray(d.loc) && d.loc[0] === "body" ? d.loc[1] : null;
    if (!FIELDS.includes(f)) continue;
    const box = $(f + "-err");
    // Beside the field its name goes without saying: "At least 2 players", "Player 2: must not be empty".
    const item = d.field.split(", ").slice(1).join(", ");
    const raw = item ? `${item}: ${d.error}` : d.error;
    const text = raw[0].toUpperCase() + raw.slice(1);
    box.textContent = box.textContent ? box.textContent + "; " + text : text;
    $(f).setAttribute("aria-invalid", "true");
    said.push(`${LABEL[f]}: ${raw}`);
    first = first || f;
  }
  if (first) $(first).focus();
  return said;
}
$("rules").onsubmit = async (e) => {
  e.preventDefault();
  clearFields();
  const target = $("target").value.trim();
  const body = { seats: $("seats").value.split(",").map((x) => x.trim()).filter(Boolean),
    target: /^-?\d+$/.test(target) ? +target : target, variant: $("variant").value };
  const r = await fetch("/api/setup", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (r.ok) { say("New match started."); return; }
  const said = r.status === 422 && Array.isArray(data.detail) ? showFields(data.detail) : [];
  if (r.status === 403 || r.status === 429) $("pin").focus();
  say(said.length ? `Not applied (the match goes on). ${said.join("; ")}` : data.error || r.statusText, true);
};
for (const a of ["pause", "resume", "abandon"]) $(a).onclick = () => api("/api/control", { action: a }, true).then(() => say(a + ": done")).catch((e) => say(e.message, true));
