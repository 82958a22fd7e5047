// A finished room step by step: the public view, or this device's own seat with its
// credential (its own hand and nobody else's).
import { renderObservation } from "/static/room_view.js";

const $ = (id) => document.getElementById(id);
const ROOM = location.pathname.split("/").filter(Boolean)[1];
let seat = null;
try { seat = JSON.parse(localStorage.getItem(`knapp-room:${ROOM}`) || "null"); } catch { seat = null; }
$("asseat").hidden = !seat;
$("mine").checked = !!seat;

async function show(step) {
  const headers = seat && $("mine").checked ? { "X-Seat-Credential": seat.credential } : {};
  const q = step === null ? "" : `?step=${step}`;
  const r = await fetch(`/api/rooms/${ROOM}/replay${q}`, { headers });
  const v = await r.json().catch(() => ({}));
  if (!r.ok) { $("msg").textContent = v.error || r.statusText; return; }
  $("msg").textContent = "";
  const names = v.seats.map((s) => s.name);
  $("title").textContent = `Replay: ${v.game_name}`;
  $("status").textContent = `step ${v.at} of ${v.steps}`;
  $("step").max = v.steps; $("step").value = v.at;
  $("board-title").textContent = v.seat === null ? "Table" : `Table (as ${names[v.seat]} saw it)`;
  $("obs").innerHTML = renderObservation(v.observation);
  $("log").innerHTML = "";
  for (const e of v.log) { const li = document.createElement("li"); li.textContent = e.text; if (e.private) li.className = "private"; $("log").prepend(li); }
}
const at = () => +$("step").value;
$("step").oninput = () => show(at());
$("first").onclick = () => show(0);
$("prev").onclick = () => show(Math.max(0, at() - 1));
$("next").onclick = () => show(Math.min(+$("step").max, at() + 1));
$("last").onclick = () => show(null);
$("mine").onchange = () => show(at());
show(null);
