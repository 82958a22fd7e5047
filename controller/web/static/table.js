// The table display: the card as large as the screen allows, the verdict as a
// picture (the correct figure, the winner's name, who came next and by how
// much, wrong grabs), scores as tokens per seat, sounds, the winner screen, the
// "who took it?" prompt, the Start of a simulated table and its controls.
// The words come from the service's view (`verdict`, `abandoned_words`,
// `resumed`); this module only lays them out.
import { Live, api, esc, session } from "/static/live.js";

const $ = (id) => document.getElementById(id);
const FIGS = ["ship", "viking", "child", "chest", "dog"];
const KEYS = { s: "ship", v: "viking", c: "child", t: "chest", d: "dog" };
const KIOSK = $("table").classList.contains("kiosk");
// The Pi's own browser is the table screen (the service gives it a credential): it
// reports paint times and may answer "who took it?" and start a rematch without a PIN.
let viewer = { table: false, staff: false };
session().then((v) => { viewer = v; if (last) render(last); });
let last = null, shownCard = null, simSeat = null, lastVerdictKey = null, receivedAt = 0;

// Sounds are synthesised with WebAudio: no files to ship, no licence questions.
let audio = null, muted = localStorage.getItem("knapp-muted") === "1";
function tone(freqs, dur) {
  if (muted) return;
  audio = audio || new AudioContext();
  const vol = parseFloat($("volume").value);
  freqs.forEach((f, i) => {
    const o = audio.createOscillator(), g = audio.createGain(), t = audio.currentTime + i * dur;
    o.frequency.value = f; o.type = "triangle";
    g.gain.setValueAtTime(vol * 0.3, t); g.gain.exponentialRampToValueAtTime(0.001, t + dur);
    o.connect(g).connect(audio.destination); o.start(t); o.stop(t + dur);
  });
}
const SOUNDS = { reveal: () => tone([660], 0.12), correct: () => tone([523, 659, 784], 0.11),
  wrong: () => tone([220, 180], 0.18), win: () => tone([523, 659, 784, 1046, 784, 1046], 0.14) };
$("mute").onclick = () => { muted = !muted; localStorage.setItem("knapp-muted", muted ? "1" : "0"); $("mute").textContent = muted ? "Sound off" : "Sound on"; };
$("mute").textContent = muted ? "Sound off" : "Sound on";
$("volume").value = localStorage.getItem("knapp-volume") || "0.6";
$("volume").oninput = () => localStorage.setItem("knapp-volume", $("volume").value);

function countdownLeft(s) {
  if (s.phase !== "ready" || s.countdown_ms == null) return null;
  return Math.max(0, s.countdown_ms - (performance.now() - receivedAt));
}
function statusText(s) {
  if (s.phase === "ready") {
    if (s.waiting) return "Waiting for players";
    const left = countdownLeft(s);
    if (left == null) return s.paused ? "Paused" : "Ready: put every figure on its pad";
    return `Next card in ${Math.ceil(left / 1000)}…`;
  }
  if (s.phase === "open") return `Card ${s.round.index + 1}: grab!`;
  if (s.phase === "clearing") return s.off_pad.length ? `Put back: ${s.off_pad.join(", ")}` : "Putting figures back…";
  return s.abandoned_words || "Match over";
}
setInterval(() => {
  if (!last) return;
  const text = statusText(last);
  if ($("status").textContent !== text) $("status").textContent = text;
  const left = countdownLeft(last);
  $("countdown").hidden = left == null;
  if (left != null) $("countdown").textContent = String(Math.max(1, Math.ceil(left / 1000)));
}, 200);

const figureImg = (fig, title, cls) => `<img class="${cls}" src="/api/figures/${encodeURIComponent(fig)}.svg" alt="the ${esc(title)}">`;

// The verdict as a picture: the correct figure drawn, the winner's name large, the
// runner-up and the margin in words, each wrong grab with the figure it took.
function verdictHtml(v, why) {
  if (!v) return "";
  const fig = v.figure ? figureImg(v.figure, v.figure_title, "fig") : "";
  let main;
  if (v.kind === "provisional") {
    main = `${fig}<div class="words"><div class="who">${esc(v.winner)}</div><div class="what">has the ${esc(v.figure_title || "figure")}…</div></div>`;
  } else if (v.kind === "won") {
    main = `${fig}<div class="words"><div class="who good">${esc(v.winner)}</div><div class="what">wins the card${v.figure_title ? ": the " + esc(v.figure_title) : ""}</div>` +
      (v.margin_words ? `<div class="margin">${esc(v.margin_words)}</div>` : "") +
      (v.too_close ? `<div class="note warn">too close to call; the earlier hand wins by the table's rule</div>` : "") + "</div>";
  } else if (v.kind === "boxed") {
    main = `${fig}<div class="words"><div class="who warn">Nobody</div><div class="what">the card goes to the box${v.figure_title ? ". It was the " + esc(v.figure_title) : ""}</div>` +
      (v.margin_words ? `<div class="margin">${esc(v.margin_words)}</div>` : "") + "</div>";
  } else if (v.kind) {
    // redeal, undone, interrupted, void: no figure (a card dealt again keeps its answer)
    main = `<div class="again" aria-hidden="true">${v.kind === "void" ? "✕" : "↻"}</div><div class="words"><div class="what">${esc(v.headline)}</div>` +
      (v.margin_words ? `<div class="margin">${esc(v.margin_words)}</div>` : "") + "</div>";
  } else main = "";
  const wrong = (v.wrong || []).map((w) => `<li class="${w.counted ? "" : "late"}">${figureImg(w.figure, w.title, "mini")}<span class="x" aria-hidden="true">✗</span> ${esc(w.words)}</li>`).join("");
  // A close call: the camera's frames around the lift, side by side with their times.
  const strip = v.photo_finish ? `<figure class="finish"><img src="${esc(v.photo_finish)}" alt="photo finish: the camera's frames around the lift, with their times"><figcaption>photo finish</figcaption></figure>` : "";
  // Why that figure, in small print for whoever wants to learn the rule (not on short screens).
  const because = why && (v.kind === "won" || v.kind === "boxed") ? `<p class="why">${esc(why)}</p>` : "";
  return (main ? `<div class="main">${main}</div>` : "") + (wrong ? `<ul class="wrong" aria-label="wrong grabs">${wrong}</ul>` : "") + strip + because;
}

const TAG_WORDS = { turner: "turns the card" };
const TAG_TITLE = { bot: "a computer player", turner: "the rule book's turner: turns over the next card (the last card's winner)",
  out: "a wrong grab: out for this card" };
function scoreTokens(s, lockedSeats, highlight) {
  const target = s.target || 0;
  return s.seats.map((seat) => {
    const n = s.scores[seat], locked = lockedSeats.has(seat);
    const pips = target > 0 && target <= 12
      ? Array.from({ length: target }, (_, i) => `<i class="${i < n ? "on" : ""}"></i>`).join("")
      : "";
    // The turner's tag in words a guest understands ("turns" alone read as a count of turns).
    const tags = [s.bots.includes(seat) ? "bot" : "", s.turner === seat ? "turner" : "", locked ? "out" : ""].filter(Boolean);
    return `<li class="seat${locked ? " locked" : ""}${highlight === seat ? " hot" : ""}">` +
      `<span class="count">${n}</span><span class="name">${esc(seat)}</span>` +
      (pips ? `<span class="pips" aria-hidden="true">${pips}</span>` : "") +
      (tags.length ? `<span class="tags">${tags.map((t) => `<span class="tag ${t}"${TAG_TITLE[t] ? ` title="${TAG_TITLE[t]}"` : ""}>${TAG_WORDS[t] || t}</span>`).join("")}</span>` : "") + "</li>";
  }).join("");
}

function render(s, fresh) {
  const prev = last; last = s;
  if (fresh) receivedAt = performance.now();
  document.body.dataset.phase = s.phase;
  // banners: hardware trouble, pause, resume and restart notices
  const banners = [];
  const pads = s.health.pads, cam = s.health.camera;
  if (pads.level !== "ok") banners.push(`<div class="banner error">Pads: ${esc(pads.message)}</div>`);
  if (s.paused) banners.push(`<div class="banner">Paused</div>`);
  for (const f of s.misplaced || []) banners.push(`<div class="banner error">The ${esc(f)}'s pad holds another figure: put every figure on its own pad</div>`);
  const disk = s.health.disk, referee = s.health.referee;
  if (disk && disk.level !== "ok") banners.push(`<div class="banner error">Disk: ${esc(disk.message)}</div>`);
  if (referee && referee.level !== "ok") banners.push(`<div class="banner error">Referee: ${esc(referee.message)}</div>`);
  if (s.resumed) banners.push(`<div class="banner info">${esc(s.resumed)}</div>`);
  if (s.restart) banners.push(`<div class="banner">${esc(s.restart.message)}</div>`);
  if (cam.level === "down" || cam.level === "degraded") banners.push(`<div class="banner">Camera: ${esc(cam.message)}. Referee from the pads; the table says who took the figure.</div>`);
  $("banners").innerHTML = banners.join("");
  // The generated PIN reaches only the table screen's own state, until first used.
  $("pinchip").hidden = !s.pin_hint;
  if (s.pin_hint) $("pinchip").innerHTML = `Staff PIN <b>${esc(s.pin_hint)}</b> <span class="muted">(shown here until first used)</span>`;
  $("status").textContent = statusText(s);
  // card: the current one, kept through the countdown to the next
  const r = s.round;
  if (r) {
    const src = `/api/cards/${encodeURIComponent(r.card)}.svg${localStorage.getItem("knapp-cb") === "1" ? "?cb=1" : ""}`;
    if (shownCard !== r.index + ":" + r.card) {
      shownCard = r.index + ":" + r.card;
      const img = $("card");
      img.onload = () => {
        img.hidden = false; $("cardback").hidden = true;
        if (last && last.phase === "open" && last.round && last.round.index === r.index) {
          SOUNDS.reveal();
          // Only the table screen measures the reveal (the service refuses anyone else's
          // report), and only if it heard of the card promptly: a late joiner would report a late paint.
          const prompt = (s.server_ns - r.reveal_ns) < 250e6;
          if (!viewer.table || !prompt) return;
          // The frame after this callback is the one the card is painted in.
          requestAnimationFrame((t) => {
            const ns = Live.toServerNs(t);
            if (ns !== null) Live.send({ type: "painted", round: r.index, t_ns: ns, uncertainty_ns: Live.uncertaintyNs() });
          });
        }
      };
      img.alt = r.card_words; img.src = src;
    }
  } else { $("card").hidden = true; $("cardback").hidden = false; shownCard = null; }
  $("card").classList.toggle("done", s.phase === "ready");
  $("waiting").hidden = !s.waiting;
  // verdict
  const v = s.verdict;
  const vbox = $("verdict");
  vbox.className = "verdict" + (v && v.kind ? " " + v.kind : "");
  if (v) vbox.dataset.kind = v.kind || "open"; else delete vbox.dataset.kind;
  const html = verdictHtml(v, r && v && r.index === v.round ? r.explanation : null);
  if (vbox.innerHTML !== html) vbox.innerHTML = html;
  if (v && v.kind && v.kind !== "provisional") {
    const key = `${v.round}:${v.kind}`;
    if (key !== lastVerdictKey) { const first = lastVerdictKey === null; lastVerdictKey = key; if (!first) (v.kind === "won" ? SOUNDS.correct : SOUNDS.wrong)(); }
  }
  // scores
  const locked = new Set(r && s.open ? r.locked : []);
  $("scores").innerHTML = scoreTokens(s, locked, v && v.kind === "won" ? v.winner : null);
  $("meta").textContent = `${s.target ? "first to " + s.target : "until the deck is used up"} · ${s.variant} · ${s.pile} cards left · ${s.boxed} in the box`;
  // grabs on this card, with their times
  $("claims").innerHTML = r ? r.claims.map((c) => `<li>${c.correct == null ? "<span class='muted'>·</span>" : c.correct ? "<span class='good'>✓</span>" : "<span class='bad'>✗</span>"} ${esc(c.seat)}: ${esc(c.figure)} at ${c.reaction_ms.toFixed(0)} ms${c.anticipation ? " <span class='warn'>(anticipation)</span>" : ""}</li>`).join("") : "";
  // who took it?
  const p = $("prompt");
  if (s.prompt.length) {
    p.hidden = false;
    p.innerHTML = s.prompt.map((q) => `<div><b>Who took the ${esc(q.figure)}?</b> ` +
      (mayAct() ? s.seats.map((seat) => `<button data-fig="${esc(q.figure)}" data-seat="${esc(seat)}">${esc(seat)}</button>`).join("")
        : "<span class='muted'>(answered on the table screen)</span>") + "</div>").join("");
    p.querySelectorAll("button").forEach((b) => b.onclick = () => api("/api/answer", { figure: b.dataset.fig, seat: b.dataset.seat }, true).catch((e) => alert(e.message)));
  } else p.hidden = true;
  renderEnd(s, prev);
  // simulation controls (never in kiosk mode: the keys still work there)
  const humans = s.seats.filter((x) => !s.bots.includes(x));
  if (!simSeat || !humans.includes(simSeat)) simSeat = humans[0] || null;
  if (s.sim && !KIOSK) {
    $("simctl").hidden = false;
    $("simseats").innerHTML = humans.map((x, i) => `<button class="${x === simSeat ? "sel" : ""}" data-seat="${esc(x)}">${i + 1} ${esc(x)}</button>`).join("") || "<span class='muted'>all seats are bots</span>";
    $("simseats").querySelectorAll("button").forEach((b) => b.onclick = () => { simSeat = b.dataset.seat; render(last); });
    $("simfigs").innerHTML = FIGS.map((f) => `<button data-fig="${f}">${figureImg(f, f, "mini")} ${f}</button>`).join("");
    $("simfigs").querySelectorAll("button").forEach((b) => b.onclick = () => simGrab(b.dataset.fig));
  }
}

// The end of a match: the winners large, the final scores, and (for the table
// screen and staff) a rematch; an abandoned match says so and offers a new one.
function renderEnd(s, prev) {
  const w = $("winner");
  if (s.phase !== "ended") { w.hidden = true; return; }
  w.hidden = false;
  const order = [...s.seats].sort((a, b) => s.scores[b] - s.scores[a]);
  const ranks = order.map((seat) => `<li class="${s.winners.includes(seat) ? "champ" : ""}"><span class="count">${s.scores[seat]}</span><span class="name">${esc(seat)}</span></li>`).join("");
  // The winners' cards fanned out under a star; an abandoned match, the figures in a row.
  const cards = s.abandoned ? [] : s.winners.flatMap((seat) => (s.won && s.won[seat]) || []);
  const fan = cards.length
    ? `<div class="fan" aria-hidden="true">${cards.map((c) => `<img src="/api/cards/${encodeURIComponent(c.card)}.svg" alt="">`).join("")}</div>`
    : "";
  const head = s.abandoned
    ? `<div class="figs" aria-hidden="true">${FIGS.map((f) => figureImg(f, f, "")).join("")}</div><h1>${esc(s.abandoned_words)}</h1>`
    : `<div class="crown" aria-hidden="true">★</div>${fan}<h1><span class="good">${s.winners.map(esc).join(" & ")}</span> ${s.winners.length > 1 ? "share the win" : "wins!"}</h1>`;
  const again = mayAct() ? `<button id="rematch" class="primary">${s.abandoned ? "New match" : "Rematch"}</button>` : "";
  const html = `${head}<ol class="final">${ranks}</ol>${again}`;
  if (w.dataset.html !== html) {
    w.innerHTML = html; w.dataset.html = html;
    // Fanned like a hand of cards (set through the CSSOM: the CSP forbids inline styles).
    const fanned = w.querySelectorAll(".fan img"), n = fanned.length;
    fanned.forEach((img, i) => { img.style.transform = `rotate(${(i - (n - 1) / 2) * Math.min(12, 40 / n)}deg)`; });
    if (mayAct()) $("rematch").onclick = () => api("/api/control", { action: "rematch" }, true).catch((e) => alert(e.message));
  }
  if (prev && prev.phase !== "ended" && s.winners.length) SOUNDS.win();
}
// The table screen and staff may answer "who took it?" and start a rematch; a phone watches.
function mayAct() { return viewer.table || viewer.staff; }
function simGrab(fig) {
  if (!simSeat) return;
  api("/api/sim/grab", { seat: simSeat, figure: fig }).catch((e) => { $("status").textContent = e.message; });
}
function start() { api("/api/sim/start").catch((e) => { $("status").textContent = e.message; }); }
$("start").onclick = start;
document.addEventListener("keydown", (e) => {
  if (!last || !last.sim) return;
  if (e.target instanceof HTMLInputElement) return; // typing the PIN in the bar
  if (last.waiting && !e.metaKey && !e.ctrlKey && !e.altKey) { e.preventDefault(); start(); return; }
  const humans = last.seats.filter((x) => !last.bots.includes(x));
  if (/^[1-8]$/.test(e.key) && humans[+e.key - 1]) { simSeat = humans[+e.key - 1]; render(last); }
  else if (KEYS[e.key]) simGrab(KEYS[e.key]);
  else if (e.key === "m") $("mute").click();
});
Live.on((s) => render(s, true));
