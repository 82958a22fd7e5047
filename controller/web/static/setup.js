// The setup page: players and rules (staff), hardware health, calibration, privacy.
import { Live, api, esc } from "/static/live.js";
const $ = (id) => document.getElementById(id);
let filled = false;
Live.on((s) => {
  if (!filled) { $("seats").value = s.seats.join(", "); $("target").value = s.target; $("variant").value = s.variant; filled = true; }
  const part = (name, h) => `<tr><td>${name}</td><td class="level-${h.level}">${esc(h.level)}</td><td>${esc(h.message)}</td></tr>`;
  const rows = [part("pads", s.health.pads), part("camera", s.health.camera), part("disk", s.health.disk)];
  rows.push(`<tr><td>mode</td><td colspan="2">${s.sim ? "simulation" : "hardware"}</td></tr>`);
  $("health").innerHTML = rows.join("");
  const e = s.evidence;
  $("privacy").innerHTML = !e.enabled ? "Evidence recording is <b>off</b>: no camera frames are kept; verdicts come from the pads."
    : `Camera evidence (short clips around each grab) is kept for <b>${e.retention_days} days</b>, at most <b>${e.retention_mb} MB</b>, oldest first; disputed rounds are kept until released. Recording now: <b>${e.recording ? "yes" : "no"}</b>.`;
});
fetch("/api/calibration").then((r) => r.json()).then((c) => {
  $("calib").textContent = c.detail + (c.file ? ` (${c.file})` : "");
  if (c.preview_url) { $("preview").src = c.preview_url; $("preview").hidden = false; }
});
$("cb").checked = localStorage.getItem("knapp-cb") === "1";
$("cb").onchange = () => localStorage.setItem("knapp-cb", $("cb").checked ? "1" : "0");
function say(text, bad) { $("msg").innerHTML = `<div class="banner ${bad ? "error" : ""}">${esc(text)}</div>`; }
$("apply").onclick = () => api("/api/setup", { seats: $("seats").value.split(",").map((x) => x.trim()).filter(Boolean), target: +$("target").value, variant: $("variant").value }, true)
  .then(() => say("New match started.")).catch((e) => say(e.message, true));
for (const a of ["pause", "resume", "abandon"]) $(a).onclick = () => api("/api/control", { action: a }, true).then(() => say(a + ": done")).catch((e) => say(e.message, true));
