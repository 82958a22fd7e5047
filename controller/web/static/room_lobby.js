// The Other games page: pick a game, its seats, options and who sits where, and start a
// room; the rooms running now and the finished ones (as replays).
import { esc } from "/static/room_view.js";

const $ = (id) => document.getElementById(id);
const LEVEL_NAMES = { random: "random", rule: "rule player", search: "search player" };
let games = [];

// An option's id ("dealer_may_swap") read as words ("Dealer may swap"); its id stays the key.
function words(id) {
  const s = String(id).replace(/[_-]+/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function choiceText(c) {
  if (typeof c === "boolean") return c ? "Yes" : "No";
  return typeof c === "string" ? c.replace(/_/g, " ") : String(c);
}

function optionInput(name, o) {
  const id = `opt-${name}`;
  const label = `<span class="optname">${esc(words(name))}</span>`;
  // The help names choices by their ids ("play_on"): read them as words there too.
  const help = `<small class="muted">${esc(String(o.help).replace(/_/g, " ").replace(/`/g, ""))}</small>`;
  const yesNo = typeof o.default === "boolean"
    && (!o.choices || o.choices.every((c) => typeof c === "boolean"));
  if (yesNo) return `<label class="opt"><input id="${id}" type="checkbox" data-opt="${esc(name)}"${o.default ? " checked" : ""}> ${label} ${help}</label>`;
  if (o.choices) {
    const opts = o.choices.map((c) => `<option value="${esc(JSON.stringify(c))}"${c === o.default ? " selected" : ""}>${esc(choiceText(c))}</option>`).join("");
    return `<label class="opt">${label} <select id="${id}" data-opt="${esc(name)}" data-json="1">${opts}</select> ${help}</label>`;
  }
  const type = typeof o.default === "number" ? "number" : "text";
  return `<label class="opt">${label} <input id="${id}" type="${type}" data-opt="${esc(name)}" value="${esc(o.default)}"> ${help}</label>`;
}

function seatRows(g, n) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    const choices = [`<option value="person"${i === 0 ? " selected" : ""}>a person</option>`,
      ...g.levels.map((l) => `<option value="bot:${l}"${i > 0 && l === (g.levels.includes("rule") ? "rule" : "random") ? " selected" : ""}>computer: ${esc(LEVEL_NAMES[l] || l)}</option>`)];
    rows.push(`<li>Seat ${i + 1}: <select class="who" data-seat="${i}" aria-label="seat ${i + 1}">${choices.join("")}</select> <input class="name" data-seat="${i}" maxlength="24" placeholder="name (optional)" aria-label="name of seat ${i + 1}"></li>`);
  }
  return rows.join("");
}

function openForm(g) {
  const box = $("newroom");
  box.hidden = false;
  box.dataset.game = g.id;
  $("nr-title").textContent = `New room: ${g.name}`;
  $("nr-seats").min = g.seats.min; $("nr-seats").max = g.seats.max; $("nr-seats").value = g.seats.default;
  // A game for a fixed number of players (Manni: three) shows the number, not a box.
  const fixed = g.seats.min === g.seats.max;
  $("nr-seats").disabled = fixed;
  $("nr-seats-box").hidden = fixed;
  $("nr-seats-fixed").hidden = !fixed;
  $("nr-seats-fixed").textContent = fixed ? `${g.seats.min} players (always)` : "";
  $("nr-plan").innerHTML = seatRows(g, g.seats.default);
  $("nr-options").innerHTML = Object.entries(g.options).map(([n, o]) => optionInput(n, o)).join("") || '<p class="muted">No options.</p>';
  $("nr-msg").textContent = "";
  box.scrollIntoView({ behavior: "smooth" });
}

function readForm(g) {
  const seats = +$("nr-seats").value;
  const plan = [...document.querySelectorAll("#nr-plan select.who")].map((s) => {
    const name = document.querySelector(`#nr-plan input.name[data-seat="${s.dataset.seat}"]`).value.trim();
    return s.value === "person" ? { kind: "person", name } : { kind: "bot", level: s.value.slice(4), name };
  });
  const options = {};
  for (const el of document.querySelectorAll("#nr-options [data-opt]")) {
    const o = g.options[el.dataset.opt];
    let v;
    if (el.dataset.json) v = JSON.parse(el.value);
    else if (el.type === "checkbox") v = el.checked;
    else if (typeof o.default === "number") v = Number(el.value);
    else v = el.value;
    if (JSON.stringify(v) !== JSON.stringify(o.default)) options[el.dataset.opt] = v;
  }
  return { game: g.id, seats, plan, options, hot_seat: $("nr-hotseat").checked,
    bot_delay_s: Number($("nr-delay").value), zombie_after_s: Number($("nr-away").value) };
}

async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || (data.detail && JSON.stringify(data.detail)) || r.statusText);
  return data;
}

async function start(e) {
  e.preventDefault();
  const g = games.find((x) => x.id === $("newroom").dataset.game);
  const body = readForm(g);
  try {
    const r = await post("/api/rooms", body);
    localStorage.setItem(`knapp-room-host:${r.room}`, r.host);
    if ($("nr-pause").checked) {
      // The Knapp daneben match waits while the table screen shows the room.
      await post("/api/control", { action: "pause" }).catch(() => null);
    }
    if (body.hot_seat) {
      const s = await post(`/api/rooms/${r.room}/hot-seat`, { host: r.host });
      localStorage.setItem(`knapp-room:${r.room}`, JSON.stringify({ credential: s.credential, seats: s.seats }));
      location.href = `/rooms/${r.room}`;
      return;
    }
    location.href = r.table;
  } catch (err) { $("nr-msg").textContent = err.message; }
}

function renderRooms(list) {
  const live = list.filter((r) => !r.finished), done = list.filter((r) => r.finished);
  const name = (id) => (games.find((g) => g.id === id) || { name: id }).name;
  $("live").innerHTML = live.length ? live.map((r) => `<li><b>${esc(name(r.game))}</b> <span class="muted">${esc((r.seats || []).map((s) => s.name).join(", "))}</span> <a href="/rooms/${esc(r.room)}/table">table screen</a> · <a href="/rooms/${esc(r.room)}/view">watch</a></li>`).join("") : '<li class="muted">No room is being played.</li>';
  $("done").innerHTML = done.length ? done.slice(0, 30).map((r) => `<li>${esc(name(r.game))} <span class="muted">${esc(r.created_utc)}</span> <a href="/rooms/${esc(r.room)}/replay">replay</a></li>`).join("") : '<li class="muted">None yet.</li>';
}

async function load() {
  const [list, cards] = await Promise.all([fetch("/api/rooms/games").then((r) => r.json()),
    fetch("/api/games").then((r) => r.json()).catch(() => [])]);
  games = list;
  const status = Object.fromEntries(cards.map((c) => [c.id, c.status]));
  $("games").innerHTML = games.map((g) => `<div class="panel game" data-game="${esc(g.id)}"><h2>${esc(g.name)} <span class="badge status-${esc(status[g.id] || "ready")}">${esc(status[g.id] || "ready")}</span></h2><p>${esc(g.summary || "")}</p>
    <p class="muted">${g.seats.min === g.seats.max ? g.seats.min : g.seats.min + "–" + g.seats.max} players · computer: ${esc(g.levels.join(", ") || "none")} · <a class="rules" href="/rules/${esc(g.id)}">rules</a></p>
    <button class="primary newroom" type="button" data-game="${esc(g.id)}">New room</button></div>`).join("");
  document.querySelectorAll("button.newroom").forEach((b) => { b.onclick = () => openForm(games.find((g) => g.id === b.dataset.game)); });
  renderRooms(await (await fetch("/api/rooms")).json());
}

$("nr-seats").oninput = () => {
  const g = games.find((x) => x.id === $("newroom").dataset.game);
  const n = Math.max(g.seats.min, Math.min(g.seats.max, +$("nr-seats").value || g.seats.default));
  $("nr-plan").innerHTML = seatRows(g, n);
};
$("nr-form").onsubmit = start;
$("nr-cancel").onclick = () => { $("newroom").hidden = true; };
load();
