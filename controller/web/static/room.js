// A game room's page: a seat's phone (or a hot-seat device), the table screen, or a
// spectator, over one WebSocket per device (controller/rooms/protocol.py).
// The seat credential is made when this device joins and lives in localStorage;
// actions carry an id of their own, so one resent after a reconnect is never applied twice.
import { esc, renderLegal, renderObservation } from "/static/room_view.js";

const $ = (id) => document.getElementById(id);
const parts = location.pathname.split("/").filter(Boolean); // rooms, id, mode
const ROOM = parts[1];
const MODE = parts[2] || "seat"; // seat | join | table | view
const SEAT_KEY = `knapp-room:${ROOM}`;
const HOST_KEY = `knapp-room-host:${ROOM}`;
const LOG_KEEP = 200;
const LOOPBACK = /^[a-z]+:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i;

function stored(key) { try { return JSON.parse(localStorage.getItem(key) || "null"); } catch { return null; } }
let seat = MODE === "table" || MODE === "view" ? null : stored(SEAT_KEY); // {credential, seats}
let host = MODE === "table" ? localStorage.getItem(HOST_KEY) : null;
let ws = null, view = null, lastN = -1, pending = null, resend = false, retry = 400, role = null;
// The game's designed screen (static/screens/GAME.js), if it has one; null: the generic view.
// Contract: `render(root, v, ctx)` draws the whole view `v` into `root` on every view;
// ctx = { act(text), busy, names, esc }. `?plain=1` keeps the generic view (the fallback).
let screen = undefined, inbox = Promise.resolve();
const PLAIN = new URLSearchParams(location.search).has("plain");
async function loadScreen(game) {
  if (screen !== undefined) return;
  screen = null;
  if (PLAIN || !/^[a-z0-9_]+$/.test(game)) return;
  try { screen = await import(`/static/screens/${game}.js`); } catch { screen = null; }
}

function newId() {
  // crypto.randomUUID needs a secure context; a phone on the café network has plain http.
  const b = new Uint8Array(9); crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
function status(text) { $("status").textContent = text; }

async function post(path, body, headers) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", ...(headers || {}) }, body: JSON.stringify(body || {}) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) { const e = new Error(data.error || (data.detail && JSON.stringify(data.detail)) || r.statusText); e.status = r.status; throw e; }
  return data;
}
// Staff-only changes: the staff session cookie; without one, the PIN form on this page logs
// the device in (POST /api/session, an HttpOnly cookie: no script keeps the PIN) and retries.
function askPin(why) {
  return new Promise((resolve, reject) => {
    const box = $("pinbox");
    box.hidden = false;
    $("pinwhy").textContent = why;
    $("pinmsg").textContent = "";
    $("pinfield").value = "";
    $("pinfield").focus();
    $("pinform").onsubmit = async (e) => {
      e.preventDefault();
      const r = await fetch("/api/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin: $("pinfield").value }) });
      const data = await r.json().catch(() => ({}));
      $("pinfield").value = "";
      if (!r.ok) { $("pinmsg").textContent = data.error || "That PIN was not accepted."; return; }
      box.hidden = true; resolve();
    };
    $("pincancel").onclick = () => { box.hidden = true; reject(new Error("Not done: staff log-in cancelled.")); };
  });
}
async function staffPost(path, body, why) {
  try { return await post(path, body); } catch (e) {
    if (e.status !== 403) throw e;
    await askPin(why || "This needs staff: enter the table PIN.");
    return post(path, body);
  }
}

function send(obj) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj)); }
function hello() {
  const msg = { type: "hello", after: lastN };
  if (seat) msg.credential = seat.credential;
  else if (host) msg.host = host;
  return msg;
}
function connect() {
  ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + `/rooms/${ROOM}/ws`);
  ws.onopen = () => { retry = 400; send(hello()); };
  // In order, one at a time: the first view waits for the game's screen to load.
  ws.onmessage = (e) => { const msg = JSON.parse(e.data); inbox = inbox.then(() => handle(msg)).catch((err) => console.error(err)); };
  ws.onclose = (e) => {
    if (e.code === 4404) { status("There is no such room."); return; }
    status("Connection lost, reconnecting…");
    setTimeout(connect, retry); retry = Math.min(retry * 2, 5000);
  };
}

async function handle(msg) {
  if (msg.type === "welcome") { role = msg.role; resend = pending !== null; return; }
  if (msg.type === "view") {
    await loadScreen(msg.game);
    render(msg);
    if (resend && pending) send(pending); // the same id: applied at most once
    resend = false;
    return;
  }
  if (msg.type === "ack") { if (pending && pending.id === msg.id) pending = null; refused(""); markBusy(); return; }
  if (msg.type === "refused") {
    if (pending && pending.id === msg.id) pending = null;
    refused(msg.reason); markBusy(); return;
  }
  if (msg.type === "unbound") {
    // The seat moved to another device, was freed at the table, or we left: watch from now on.
    if (role === "table") { localStorage.removeItem(HOST_KEY); host = null; }
    else { localStorage.removeItem(SEAT_KEY); seat = null; }
    pending = null;
    $("banners").innerHTML = `<div class="banner">${esc(msg.reason)}</div>`;
    return;
  }
  if (msg.type === "transfer") {
    $("transferbox").hidden = false;
    $("transferbox").innerHTML = `<p>Open this on the other device (once):</p><div class="qr">${msg.qr}</div><p class="url">${esc(msg.url)}</p>`;
    return;
  }
  if (msg.type === "error") $("refusal").textContent = msg.error;
}

// A refusal is the rule's own reason: under the generic buttons, and above a designed screen,
// which is drawn again so its buttons are live again.
let refusal = "";
function refused(text) {
  refusal = text;
  $("refusal").textContent = text;
  $("refused").textContent = text;
  $("refused").hidden = !(text && screen && view && !view.handover);
  if (screen && view && !view.handover) drawScreen(view);
}
// ctx.undo: take back this seat's last action(s) of the turn, when the room allows it (else null).
function drawScreen(v) {
  screen.render($("screen"), v, { act, busy: pending !== null, names: names(v), esc, refusal, room: ROOM, undo: v.can_undo ? undo : null });
}
function undo() {
  if (pending || !view || view.seat === null) return;
  pending = { type: "undo", seat: view.seat, id: newId() }; markBusy(); send(pending);
}

function markBusy() { document.querySelectorAll("#legal button, #undo").forEach((b) => { b.disabled = pending !== null; }); }

function act(text) {
  if (pending || !view || view.seat === null) return;
  pending = { type: "act", seat: view.seat, action: text, id: newId(), step: view.step };
  markBusy(); send(pending);
}

function names(v) { return v.seats.map((s) => s.name); }

function render(v) {
  view = v;
  const nm = names(v);
  $("title").textContent = `${v.game_name}`;
  $("content").hidden = false;
  document.body.dataset.role = v.role;
  document.body.dataset.step = v.step;
  // Hot-seat: another person's turn; nothing private is on this page until they tap.
  $("privacy").hidden = !v.handover;
  if (v.handover) {
    $("content").hidden = true;
    $("log").innerHTML = ""; // the last person's own lines go; the next one's come on the tap
    $("privacy-text").textContent = `Hand the device to ${v.handover.name}`;
    $("reveal").textContent = `I am ${v.handover.name}: show my hand`;
    $("reveal").onclick = () => send({ type: "reveal", seat: v.handover.seat });
  }
  const onTurn = v.actors.map((s) => nm[s]).join(", ");
  status(v.over ? (v.closed ? `Room closed: ${v.closed}` : "Game over") : `On turn: ${onTurn}`);
  const designed = screen && !v.handover;
  $("screen").hidden = !designed;
  $("mine").classList.toggle("plain-only", Boolean(designed));
  $("board").classList.toggle("plain-only", Boolean(designed));
  if (designed) drawScreen(v);
  $("refused").hidden = !(designed && refusal);
  $("ruleslink").href = `/rules/${encodeURIComponent(v.game)}?room=${encodeURIComponent(ROOM)}`;
  $("ruleslink").hidden = false;
  $("sound").hidden = v.role !== "table";
  if (v.role === "table") chime(v);
  renderMine(v, nm);
  $("obs").innerHTML = renderObservation(v.observation);
  $("board-title").textContent = v.seat === null ? "Table" : `Table (as ${nm[v.seat]} sees it)`;
  renderResult(v, nm);
  renderSeats(v);
  renderLog(v);
  renderMenus(v);
}

function renderMine(v, nm) {
  const mine = v.seat !== null;
  $("mine").hidden = !mine;
  if (!mine) { $("legal").innerHTML = ""; return; }
  const me = v.seats[v.seat];
  $("mine-title").textContent = v.over ? nm[v.seat] : `${nm[v.seat]}: your move`;
  const myTurn = v.actors.includes(v.seat);
  $("turn").textContent = me.computer ? `A computer (${me.computer}) is playing for you.` : v.over ? "" : myTurn ? "Your turn." : `Waiting for ${v.actors.map((s) => nm[s]).join(", ")}.`;
  // A choice half made in a long list survives a new view if it is still legal.
  const picked = Object.fromEntries([...$("legal").querySelectorAll("select.pick")].map((x) => [x.getAttribute("aria-label"), x.value]));
  $("legal").innerHTML = renderLegal(v.legal);
  $("legal").querySelectorAll("select.pick").forEach((x) => {
    const was = picked[x.getAttribute("aria-label")];
    if (was && v.legal.includes(was)) x.value = was;
  });
  $("legal").querySelectorAll("button.act").forEach((b) => { b.onclick = () => act(b.dataset.action); });
  $("legal").querySelectorAll("button.act-pick").forEach((b) => { b.onclick = () => act(b.previousElementSibling.value); });
  $("undo").hidden = !v.can_undo;
  $("undo").onclick = undo;
  $("reclaim").hidden = !me.computer;
  markBusy();
}

function renderResult(v, nm) {
  $("result").hidden = !v.result;
  if (!v.result) return;
  const rows = v.result.returns.map((r, i) => `<li${v.result.winners.includes(i) ? ' class="won"' : ""}>${esc(nm[i])}: ${esc(r)}</li>`).join("");
  $("result").innerHTML = `<h3>Result</h3><ol class="scores">${rows}</ol><p>Winner: ${esc(v.result.winners.map((w) => nm[w]).join(" and "))}</p><p><a href="/rooms/${esc(ROOM)}/replay">Replay this game</a></p>`;
}

function renderSeats(v) {
  const timers = Object.fromEntries(v.timers.map((t) => [t.seat, t.in_s]));
  $("seatlist").innerHTML = v.seats.map((s) => {
    const bits = [s.kind === "bot" ? `computer (${s.computer})` : s.kind === "open" ? "open" : "person"];
    if (s.kind !== "bot" && s.computer) bits.push(`computer (${s.computer}) plays for now`);
    if (s.kind === "person") bits.push(s.connected ? "here" : "away");
    if (timers[s.seat] !== undefined) bits.push(`computer takes over in ${Math.ceil(timers[s.seat])} s`);
    const cls = [v.actors.includes(s.seat) ? "turn" : "", s.seat === v.seat ? "me" : ""].join(" ");
    const staff = v.role === "table" && s.kind === "person" && !v.over ? ` <button type="button" class="free" data-seat="${s.seat}">Free seat</button>` : "";
    const fill = v.role === "table" && s.kind === "open" && !s.computer && !v.over ? ` <button type="button" class="fill" data-seat="${s.seat}">Computer plays</button>` : "";
    return `<li class="${cls}" data-seat="${s.seat}"><b>${esc(s.name)}</b> <span class="muted">${esc(bits.join(", "))}</span>${staff}${fill}</li>`;
  }).join("");
  $("seatlist").querySelectorAll("button.free").forEach((b) => { b.onclick = () => staffPost(`/api/rooms/${ROOM}/release`, { seat: +b.dataset.seat }, "Freeing a seat needs staff: enter the table PIN.").catch((e) => { $("tablemsg").textContent = e.message; }); });
  $("seatlist").querySelectorAll("button.fill").forEach((b) => { b.onclick = () => post(`/api/rooms/${ROOM}/computer`, { seat: +b.dataset.seat, host }).catch((e) => { $("tablemsg").textContent = e.message; }); });
  $("joins").hidden = !(v.joins && v.joins.length);
  // A join link at localhost works only on this machine: say so next to the codes.
  $("joins-local").hidden = !(v.joins || []).some((j) => LOOPBACK.test(j.url));
  if (v.joins) $("qrs").innerHTML = v.joins.map((j) => `<figure class="qrcard" data-seat="${j.seat}"><div class="qr">${j.qr}</div><figcaption><b>${esc(j.name)}</b><br><a class="url" href="${esc(j.url)}">${esc(j.url)}</a></figcaption></figure>`).join("");
}

function renderLog(v) {
  const box = $("log");
  if (v.log_after === -1) box.innerHTML = "";
  for (const e of v.log) {
    const li = document.createElement("li");
    li.textContent = e.text;
    if (e.private) li.className = "private";
    box.prepend(li);
    lastN = Math.max(lastN, e.n);
  }
  while (box.children.length > LOG_KEEP) box.lastChild.remove();
}

function renderMenus(v) {
  $("seatmenu").hidden = v.role !== "seat" || v.over || v.seat === null;
  $("tablemenu").hidden = v.role !== "table";
  $("hotseat").hidden = !(v.role === "table" && v.hot_seat && v.seats.some((s) => s.kind === "open") && !v.over);
}

// -- sounds on the table screen -----------------------------------------------------------
// Synthesised with WebAudio (no files); volume and mute share the Knapp table page's keys.
let audio = null, lastActors = null, lastOver = null;
let muted = localStorage.getItem("knapp-muted") === "1";
function tone(freqs, dur) {
  const vol = parseFloat($("volume").value);
  if (muted || !(vol > 0)) return;
  try { audio = audio || new AudioContext(); } catch { return; }
  freqs.forEach((f, i) => {
    const o = audio.createOscillator(), g = audio.createGain(), t = audio.currentTime + i * dur;
    o.frequency.value = f; o.type = "triangle";
    g.gain.setValueAtTime(vol * 0.3, t); g.gain.exponentialRampToValueAtTime(0.001, t + dur);
    o.connect(g).connect(audio.destination); o.start(t); o.stop(t + dur);
  });
}
function chime(v) {
  const actors = v.actors.join(","), first = lastActors === null;
  // Not on the first view (a reload is no news); the end once; a turn when whoever is due changes.
  const kind = first ? null : v.over && !lastOver ? "end" : !v.over && actors !== lastActors ? "turn" : null;
  lastActors = actors; lastOver = v.over;
  if (!kind) return;
  document.body.dataset.chime = kind;
  if (kind === "end") tone([523, 659, 784, 1046], 0.14);
  else tone([660, 880], 0.09);
}
function showMute() { $("mute").textContent = muted ? "Sound off" : "Sound on"; $("mute").setAttribute("aria-pressed", String(muted)); }
$("mute").onclick = () => { muted = !muted; localStorage.setItem("knapp-muted", muted ? "1" : "0"); showMute(); if (!muted) tone([660], 0.1); };
$("volume").value = localStorage.getItem("knapp-volume") || "0.6";
$("volume").oninput = () => localStorage.setItem("knapp-volume", $("volume").value);
showMute();

// -- buttons that are always there ------------------------------------------------------
$("reclaim").onclick = () => view && send({ type: "reclaim", seat: view.seat });
$("transfer").onclick = () => view && send({ type: "transfer", seat: view.seat });
$("leave").onclick = () => { if (view && confirm("Leave this seat? A computer plays on for you.")) send({ type: "leave", seat: view.seat }); };
$("tomatch").onclick = async () => {
  try { await post("/api/control", { action: "resume" }); } catch (e) { /* only the table screen or staff may resume */ }
  location.href = "/";
};
$("closeroom").onclick = () => { if (confirm("Close this room for everyone?")) post(`/api/rooms/${ROOM}/close`, { host }).catch((e) => { $("tablemsg").textContent = e.message; }); };
$("hotseat").onclick = async () => {
  try {
    const r = await post(`/api/rooms/${ROOM}/hot-seat`, { host });
    localStorage.setItem(SEAT_KEY, JSON.stringify({ credential: r.credential, seats: r.seats }));
    location.href = `/rooms/${ROOM}`;
  } catch (e) { $("tablemsg").textContent = e.message; }
};

async function start() {
  if (MODE === "join") {
    const code = location.hash.slice(1);
    if (seat || !code) { history.replaceState(null, "", `/rooms/${ROOM}${location.search}`); connect(); return; }
    $("joinbox").hidden = false;
    $("joinform").onsubmit = async (e) => {
      e.preventDefault();
      try {
        const r = await post(`/api/rooms/${ROOM}/join`, { code, name: $("joinname").value });
        seat = { credential: r.credential, seats: r.seats };
        localStorage.setItem(SEAT_KEY, JSON.stringify(seat));
        history.replaceState(null, "", `/rooms/${ROOM}${location.search}`); // the used code leaves the address bar
        $("joinbox").hidden = true;
        connect();
      } catch (err) { $("joinmsg").textContent = err.message; }
    };
    return;
  }
  if (MODE === "table" && !host) {
    $("banners").innerHTML = '<div class="banner">This screen shows the public view; the join codes are on the screen that started the room. <button id="becomehost" type="button">Make this the table screen (staff)</button></div>';
    $("becomehost").onclick = async () => {
      try {
        const r = await staffPost(`/api/rooms/${ROOM}/host`, {}, "Making this the table screen needs staff: enter the table PIN.");
        localStorage.setItem(HOST_KEY, r.host);
        location.reload();
      } catch (e) { $("banners").textContent = e.message; }
    };
  }
  connect();
}
start();
