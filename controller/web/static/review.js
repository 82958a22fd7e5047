// The dispute review: stored matches, one match's rounds on a timeline, corrections
// and evidence holds (staff). An open card is shown without its answer.
// Everything is said in words (no internal codes), every field has a label, and
// questions, warnings and errors appear in the page, never in a browser dialog.
import { Live, esc, session } from "/static/live.js";

const $ = (id) => document.getElementById(id);
let current = new URLSearchParams(location.search).get("match");

// -- words for the table's codes --------------------------------------------------------
const FIGURE = { ship: "ship", viking: "Viking", child: "Viking child", chest: "treasure chest", dog: "dog" };
const TITLE = { ship: "blue ship", viking: "red Viking", child: "green Viking child", chest: "yellow treasure chest", dog: "white dog" };
const PLACE = { green: "meadow", yellow: "wheat field", red: "earth", blue: "sea", white: "snow" };
const PHASE = { ready: "waiting for the next card", open: "a card is showing", clearing: "waiting for the figures to go back", ended: "over" };
const REVEAL = { shown: "the card was sent to the screen", paint: "the screen painted the card", photon: "the light sensor saw the card appear" };
const PADS = { sim: "simulated pad", gpio: "pad sensor", serial: "pad board", camera: "camera" };
const WHO = { sim: "simulated player", camera: "camera saw who", table: "told at the table" };
export const figureTitle = (f) => TITLE[f] || f;
// "chest:white/blue+green" -> "white treasure chest on sea and meadow"
export function cardWords(text) {
  const m = /^(\w+):(\w+)\/(\w+)\+(\w+)$/.exec(text || "");
  if (!m) return text;
  return `${m[2]} ${FIGURE[m[1]] || m[1]} on ${PLACE[m[3]] || m[3]} and ${PLACE[m[4]] || m[4]}`;
}
// "sim+sim" -> "simulated pad, simulated player"; "camera contact" -> "second hand, seen by the camera"
export function sourceWords(text) {
  const s = String(text || "");
  if (s.endsWith(" contact")) return `second hand on the figure (${WHO[s.slice(0, -8)] || s.slice(0, -8)})`;
  const [pad, who] = s.split("+");
  return [PADS[pad] || pad, who ? WHO[who] || who : null].filter(Boolean).join(", ");
}
// Milliseconds as people read them: whole ms, one decimal under 10 ms (where a tie is decided).
export function ms(x) {
  if (x == null) return "–";
  return (Math.abs(x) >= 10 ? String(Math.round(x)) : (+x).toFixed(1).replace(/\.0$/, "")) + " ms";
}
function outcomeWords(rd) {
  switch (rd.outcome) {
    case "won": return `${esc(rd.winner)} won the card`;
    case "boxed": return "Nobody: the card went into the box";
    case "redeal": return "Too close to call: the card was shown again";
    case "undone": return "Verdict taken back: the card was shown again";
    case "void": return "Void: the card does not count";
    case "interrupted": return "Interrupted by a restart: the card was dealt again";
    default: return "Still open";
  }
}
const CORRECTION = { awarded: "awarded", voided: "voided", undone: "verdict undone" };
function when(utc) {
  const d = new Date(utc);
  return isNaN(d) ? esc(utc) : esc(d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" }));
}
function scoreLine(m) {
  return (m.seats || []).map((s) => `${esc(s)} ${m.scores[s]}`).join(" · ");
}

// -- the match list: links, so a keyboard reaches them and each match has an address ----
async function loadList() {
  const list = await (await fetch("/api/matches")).json();
  if (!current && list.length) current = list[0].match_id;
  $("matches").innerHTML = list.map((m) => `<li><a href="?match=${encodeURIComponent(m.match_id)}" data-id="${esc(m.match_id)}"${m.match_id === current ? ' aria-current="page"' : ""}>
      ${when(m.created_utc)} ${m.live ? (m.phase === "ended" ? "<b>(on the table, over)</b>" : "<b>(being played)</b>") : ""}<br>
      <span class="muted">${scoreLine(m)}
      ${m.winners && m.winners.length ? "· ★ " + m.winners.map(esc).join(", ") : m.abandoned ? "· abandoned" : ""}</span></a></li>`).join("")
    || '<li class="muted">No matches yet.</li>';
  document.querySelectorAll("#matches a").forEach((a) => a.onclick = (e) => {
    e.preventDefault();
    current = a.dataset.id;
    // Mark the chosen match at once: the list's own refresh below can come back
    // after the match has been drawn.
    document.querySelectorAll("#matches a").forEach((b) => {
      if (b === a) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
    });
    history.replaceState(null, "", "?match=" + encodeURIComponent(current));
    lastMatchText = "";
    loadList(); loadMatch().then(() => { const h = document.querySelector("#detail h2"); if (h) h.focus(); });
  });
}

// -- the timeline: ticks on a bar, labels laid out in rows so none overlaps --------------
function timelineBar(rd) {
  const items = rd.claims.map((c) => ({ ms: c.reaction_ms, label: `${c.seat}: ${FIGURE[c.figure] || c.figure} ${ms(c.reaction_ms)}`, cls: c.correct == null ? "" : c.correct ? "good" : "bad" }));
  const max = Math.max(500, ...items.map((i) => i.ms)) * 1.1;
  // Positions go in data-left and are set through the CSSOM after rendering:
  // the Content-Security-Policy allows no inline style attributes.
  const pos = (x) => Math.max(0, Math.min(100, x / max * 100)).toFixed(2);
  return `<div class="timeline" aria-label="grabs after the card appeared">
    <div class="labels">
      <span class="label reveal" data-left="0">card shown</span>
      ${items.map((i) => `<span class="label ${i.cls}" data-left="${pos(i.ms)}">${esc(i.label)}</span>`).join("")}
    </div>
    <div class="bar"><div class="tick reveal" data-left="0"></div>
      ${items.map((i) => `<div class="tick ${i.cls}" data-left="${pos(i.ms)}"></div>`).join("")}</div>
    <p class="muted small">Times count from when ${esc(REVEAL[rd.reveal_measure] || rd.reveal_measure)}.</p></div>`;
}
// Each label is centred over its tick but kept inside the bar; a label that would touch
// the one before it in a row goes to the next row.
function layoutTimelines() {
  document.querySelectorAll(".timeline").forEach((tl) => {
    const box = tl.querySelector(".labels"), width = box.clientWidth;
    const rows = [];
    const labels = [...box.querySelectorAll(".label")].map((el) => ({ el, x: +el.dataset.left / 100 * width, w: el.offsetWidth }));
    labels.sort((a, b) => a.x - b.x);
    for (const l of labels) {
      const left = Math.max(0, Math.min(width - l.w, l.x - l.w / 2));
      let row = rows.findIndex((end) => end + 6 <= left);
      if (row < 0) { row = rows.length; rows.push(0); }
      rows[row] = left + l.w;
      l.el.style.left = left + "px";
      l.el.style.top = `${row * 1.4}em`;
    }
    box.style.height = `${Math.max(1, rows.length) * 1.4}em`;
    tl.querySelectorAll(".tick[data-left]").forEach((t) => { t.style.left = t.dataset.left + "%"; });
  });
}
addEventListener("resize", layoutTimelines);

function grabsTable(rd) {
  if (!rd.claims.length) return '<p class="muted">Nobody grabbed.</p>';
  const result = (c) => (c.correct == null ? '<span class="muted">open</span>' : c.correct ? '<span class="good">right</span>' : '<span class="bad">wrong</span>')
    + (c.anticipation ? ' <span class="warn">too early (anticipation)</span>' : "") + (c.counted === false ? " (after the winner)" : "");
  return `<table class="stack grabs"><thead><tr><th>Player</th><th>Figure</th><th>Reaction</th><th>Give or take</th><th>How it was seen</th><th>Result</th></tr></thead><tbody>
    ${rd.claims.map((c) => `<tr><td data-label="Player">${esc(c.seat)}</td><td data-label="Figure">${esc(figureTitle(c.figure))}</td>
      <td data-label="Reaction" class="reaction">${ms(c.reaction_ms)}</td><td data-label="Give or take">± ${ms(c.uncertainty_ms)}</td>
      <td data-label="How it was seen">${esc(sourceWords(c.source))}</td><td data-label="Result"><span>${result(c)}</span></td></tr>`).join("")}</tbody></table>`;
}

function correctionForm(m, rd) {
  const i = rd.index;
  return `<form class="corr" data-r="${i}" autocomplete="off"><fieldset><legend>Correct this card (staff)</legend>
    <div class="fields">
      <label for="seat-${i}">Give the card to</label>
      <select id="seat-${i}" class="seat">${m.seats.map((s) => `<option>${esc(s)}</option>`).join("")}</select>
      <label for="reason-${i}">Reason</label>
      <input id="reason-${i}" class="reason" maxlength="200" aria-describedby="msg-${i}">
    </div>
    <div class="row">
      <button type="submit" data-k="award">Give card</button>
      <button type="button" data-k="void">Void</button>
      ${i === m.rounds.length - 1 ? '<button type="button" data-k="undo">Undo verdict</button>' : ""}
    </div>
    <div class="ask" hidden></div>
    <p class="msg" id="msg-${i}" role="status"></p>
  </fieldset></form>`;
}

let lastMatchText = "";
async function loadMatch() {
  if (!current) { $("detail").innerHTML = '<div class="panel muted">No match has been played yet.</div>'; return; }
  const r = await fetch("/api/matches/" + encodeURIComponent(current));
  if (!r.ok) {
    const data = await r.json().catch(() => ({}));
    $("detail").innerHTML = `<div class="panel bad" role="alert">${esc(data.detail || data.error || r.statusText)}</div>`;
    return;
  }
  const text = await r.text();
  // Re-rendering identical data would only reset a half-filled correction form.
  if (text === lastMatchText && $("detail").childElementCount) return;
  lastMatchText = text;
  const m = JSON.parse(text);
  const rounds = m.rounds.slice().reverse().map((rd) => `
    <section class="panel round" id="round-${rd.index}">
      <img src="/api/cards/${encodeURIComponent(rd.card)}.svg" alt="${esc(cardWords(rd.card))}">
      <div class="what">
        <h3>Card ${rd.index + 1}: ${esc(cardWords(rd.card))}</h3>
        <p>The right figure: <b>${rd.answer ? "the " + esc(figureTitle(rd.answer)) : "not told while the card is open"}</b></p>
        <p class="verdict"><b>${outcomeWords(rd)}</b>
          ${rd.margin_ms != null ? ` · by ${ms(rd.margin_ms)} (± ${ms(rd.uncertainty_ms)})` : ""}
          ${rd.too_close ? ' · <span class="warn">too close to call</span>' : ""}</p>
        <p class="muted">${esc(rd.reason || "")}</p>
        ${timelineBar(rd)}
        ${grabsTable(rd)}
        ${rd.explanation ? `<p class="muted">${esc(rd.explanation)}</p>` : ""}
        ${rd.evidence.length ? '<div class="evidence"><p>Evidence: ' + rd.evidence.map((e) => `${esc(e.name)} <code>${esc(e.sha256.slice(0, 16))}…</code>
          ${e.ref ? `<button type="button" class="hold" data-ref="${esc(e.ref)}" data-keep="${e.held ? "0" : "1"}">${e.held ? "Release (kept until released)" : "Keep until released"}</button>` : ""}`).join(", ") + '</p><div class="ask" hidden></div><p class="msg" role="status"></p></div>' : ""}
        ${rd.corrections.map((c) => `<p class="warn">Correction: ${esc(CORRECTION[c.kind] || c.kind)}${c.seat ? " to " + esc(c.seat) : ""}: ${esc(c.reason)} (it was ${esc(c.was || "open")}${c.winner ? ", " + esc(c.winner) : ""})</p>`).join("")}
        ${correctionForm(m, rd)}
      </div>
    </section>`).join("");
  $("detail").innerHTML =
    `<div class="panel"><h2 tabindex="-1">Match ${esc(m.match_id)}</h2>
     <p>${scoreLine(m)} · the match is ${esc(PHASE[m.phase] || m.phase)}${m.winners.length ? " · ★ " + m.winners.map(esc).join(", ") : ""}</p></div>`
    + (rounds || '<div class="panel muted">No cards yet.</div>');
  layoutTimelines();
  document.querySelectorAll(".corr select").forEach((el) => el.onchange = () => { el.dataset.touched = "1"; });
  document.querySelectorAll("button.hold").forEach((b) => b.onclick = () => {
    const box = b.closest(".evidence");
    staffSend(`/api/matches/${encodeURIComponent(current)}/evidence/${encodeURIComponent(b.dataset.ref)}/hold`,
      { keep: b.dataset.keep === "1" }, box.querySelector(".ask"), box.querySelector(".msg")).then((ok) => { if (ok) { lastMatchText = ""; loadMatch(); } });
  });
  document.querySelectorAll("form.corr").forEach(wireCorrection(m));
}

// -- corrections ------------------------------------------------------------------------
function wireCorrection(m) {
  return (form) => {
    const r = +form.dataset.r, rd = m.rounds[r];
    const msg = form.querySelector(".msg"), ask = form.querySelector(".ask"), reason = form.querySelector(".reason");
    const go = async (kind) => {
      const text = reason.value.trim();
      msg.className = "msg"; msg.textContent = "";
      reason.removeAttribute("aria-invalid");
      if (!text) { say(msg, "A correction needs a reason: say what the video or the players showed.", true); reason.setAttribute("aria-invalid", "true"); reason.focus(); return; }
      const body = { kind, reason: text, round: r };
      if (kind === "award") {
        body.seat = form.querySelector(".seat").value;
        const doubt = awardDoubt(rd, body.seat);
        if (doubt && !(await confirmInPage(ask, doubt, `Give ${body.seat} the card anyway`))) { say(msg, "Not given."); return; }
      }
      if (await staffSend(`/api/matches/${encodeURIComponent(current)}/corrections`, body, ask, msg)) { loadMatch(); loadList(); }
    };
    form.onsubmit = (e) => { e.preventDefault(); go("award"); };
    form.querySelectorAll("button[type=button][data-k]").forEach((b) => b.onclick = () => go(b.dataset.k));
  };
}
// Why giving `seat` this card looks wrong, or null: their grabs on it were all wrong, or none.
export function awardDoubt(rd, seat) {
  const mine = rd.claims.filter((c) => c.seat === seat);
  if (rd.winner === seat && rd.outcome === "won") return `${seat} already has this card.`;
  if (!mine.length) return `${seat} made no grab on this card.`;
  if (mine.every((c) => c.correct === false)) {
    const what = mine.map((c) => "the " + figureTitle(c.figure)).join(" and ");
    return `${seat}'s only grab on this card was wrong (${what}${rd.answer ? `; the right figure was the ${figureTitle(rd.answer)}` : ""}).`;
  }
  return null;
}
function say(el, text, bad) { el.className = "msg " + (bad ? "bad" : "good"); el.textContent = text; }
// A question in the page: resolves true when the person confirms, false when they cancel.
function confirmInPage(box, text, yes) {
  return new Promise((resolve) => {
    box.hidden = false;
    box.className = "ask confirm";
    box.setAttribute("role", "alertdialog");
    box.innerHTML = `<p class="warn"><b>Check:</b> ${esc(text)}</p>
      <div class="row"><button type="button" class="yes">${esc(yes)}</button> <button type="button" class="no">Cancel</button></div>`;
    const done = (answer) => { box.hidden = true; box.innerHTML = ""; resolve(answer); };
    box.querySelector(".yes").onclick = () => done(true);
    box.querySelector(".no").onclick = () => done(false);
    box.querySelector(".no").focus();
  });
}
// The table PIN asked in the page (POST /api/session: an HttpOnly cookie, no script keeps it).
function askPin(box) {
  return new Promise((resolve) => {
    const id = "pin-" + Math.random().toString(36).slice(2, 8);
    box.hidden = false;
    box.className = "ask pin";
    box.removeAttribute("role");
    box.innerHTML = `<p>This needs staff. Enter the table PIN once on this device:</p>
      <div class="row"><label for="${id}">Table PIN</label> <input id="${id}" type="password" inputmode="numeric" autocomplete="off" class="pinfield">
      <button type="button" class="yes">Log in and continue</button> <button type="button" class="no">Cancel</button></div>
      <p class="msg bad" role="alert"></p>`;
    const field = box.querySelector("input"), err = box.querySelector(".msg");
    const done = (answer) => { box.hidden = true; box.innerHTML = ""; resolve(answer); };
    const login = async () => {
      const r = await fetch("/api/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin: field.value }) });
      const data = await r.json().catch(() => ({}));
      field.value = "";
      if (!r.ok) { err.textContent = data.error || "That PIN was not accepted."; field.focus(); return; }
      session(true); // the navigation bar shows "Staff" now
      done(true);
    };
    box.querySelector(".yes").onclick = login;
    field.onkeydown = (e) => { if (e.key === "Enter") { e.preventDefault(); login(); } };
    box.querySelector(".no").onclick = () => done(false);
    field.focus();
  });
}
// POST a staff change; without a session, ask for the PIN in `box` and try once more.
// Errors are written into `msg`. Resolves true when the change was made.
async function staffSend(path, body, box, msg) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json().catch(() => ({}));
    if (r.ok) { say(msg, "Done."); return true; }
    if (r.status === 403 && attempt === 0 && box) {
      if (await askPin(box)) continue;
      say(msg, "Not changed: it needs staff.", true);
      return false;
    }
    say(msg, data.error || (typeof data.detail === "string" ? data.detail : "") || r.statusText, true);
    return false;
  }
  return false;
}

loadList().then(loadMatch);
// Live refresh, but never while someone is writing a correction (it would wipe the form).
function editing() {
  return [...document.querySelectorAll(".corr input")].some((i) => i.value) || !!document.querySelector(".corr select[data-touched]")
    || !!document.querySelector(".ask:not([hidden])") || !!(document.activeElement && document.activeElement.closest(".corr"));
}
let refresh = null;
Live.on((s) => { if (s.match_id === current && !editing()) { clearTimeout(refresh); refresh = setTimeout(() => { if (!editing()) { loadMatch(); loadList(); } }, 300); } });
