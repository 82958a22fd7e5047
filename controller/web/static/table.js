// The table display: the card, the verdict, the scores, sounds, the winner
// screen, the "who took it?" prompt and the simulation controls.
import { Live, api, esc, session } from "/static/live.js";

const $ = (id) => document.getElementById(id);
const FIGS = ["ship", "viking", "child", "chest", "dog"];
const KEYS = { s: "ship", v: "viking", c: "child", t: "chest", d: "dog" };
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

function statusText(s) {
  if (s.phase === "ready") {
    if (s.countdown_ms == null) return s.paused ? "Paused" : "Ready";
    const left = Math.max(0, s.countdown_ms - (performance.now() - receivedAt));
    return `Next card in ${Math.ceil(left / 1000)}…`;
  }
  if (s.phase === "open") return `Card ${s.round.index + 1}: grab!`;
  if (s.phase === "clearing") return s.off_pad.length ? `Put back: ${s.off_pad.join(", ")}` : "Putting figures back…";
  return s.abandoned ? `Match abandoned: ${s.abandoned}` : "Match over";
}
setInterval(() => { if (last) $("status").textContent = statusText(last); }, 200);

function render(s, fresh) {
  const prev = last; last = s;
  if (fresh) receivedAt = performance.now();
  document.body.dataset.phase = s.phase;
  // banners: the generated PIN (only in the table screen's own state), hardware trouble, messages
  const banners = [];
  if (s.pin_hint) banners.push(`<div class="banner">Table PIN: <b>${esc(s.pin_hint)}</b> (staff log in with it once per device; shown on this screen until first used)</div>`);
  const pads = s.health.pads, cam = s.health.camera;
  if (pads.level !== "ok") banners.push(`<div class="banner error">Pads: ${esc(pads.message)}</div>`);
  if (s.paused) banners.push(`<div class="banner">Paused</div>`);
  for (const f of s.misplaced || []) banners.push(`<div class="banner error">The ${esc(f)}'s pad holds another figure: put every figure on its own pad</div>`);
  const disk = s.health.disk, referee = s.health.referee;
  if (disk && disk.level !== "ok") banners.push(`<div class="banner error">Disk: ${esc(disk.message)}</div>`);
  if (referee && referee.level !== "ok") banners.push(`<div class="banner error">Referee: ${esc(referee.message)}</div>`);
  if (s.restart) banners.push(`<div class="banner">${esc(s.restart.message)}</div>`);
  if (cam.level === "down" || cam.level === "degraded") banners.push(`<div class="banner">Camera: ${esc(cam.message)}. Referee from the pads; the table says who took the figure.</div>`);
  $("banners").innerHTML = banners.join("");
  $("status").textContent = statusText(s);
  // card
  const r = s.round;
  if (r && (s.phase === "open" || s.phase === "clearing" || s.phase === "ended")) {
    const src = `/api/cards/${encodeURIComponent(r.card)}.svg${localStorage.getItem("knapp-cb") === "1" ? "?cb=1" : ""}`;
    if (shownCard !== r.index + ":" + r.card) {
      shownCard = r.index + ":" + r.card;
      const img = $("card");
      img.onload = () => {
        img.hidden = false;
        if (s.phase === "open") {
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
      img.alt = r.card; img.src = src;
    }
  } else { $("card").hidden = true; shownCard = null; }
  // verdict
  const v = s.last_verdict;
  const vbox = $("verdict");
  if (v && r && v.round === r.index && s.phase !== "ready") {
    const cls = v.provisional ? "provisional" : v.outcome;
    let head = v.provisional ? `${esc(v.winner)} has ${r.answer_title ? "the " + esc(r.answer_title) : "it"}…`
      : v.outcome === "won" ? `<span class="good">${esc(v.winner)}</span> wins the card`
      : v.outcome === "redeal" ? `<span class="warn">Too close to call</span>: the card is dealt again`
      : v.outcome === "boxed" ? `<span class="warn">Nobody</span>: the card goes to the box`
      : esc(v.reason);
    const margin = !v.provisional && v.margin_ns != null ? `<div class="margin">by ${(v.margin_ns / 1e6).toFixed(1)} ms (± ${(v.uncertainty_ns / 1e6).toFixed(2)} ms)</div>` : "";
    vbox.className = "verdict " + cls;
    vbox.innerHTML = head + margin + (r.explanation ? `<div class="why">${esc(r.explanation)}</div>` : "");
    vbox.hidden = false;
    const key = `${v.round}:${v.provisional}:${v.outcome}`;
    if (key !== lastVerdictKey) { lastVerdictKey = key; if (!v.provisional) (v.outcome === "won" ? SOUNDS.correct : SOUNDS.wrong)(); }
  } else vbox.hidden = true;
  // scores
  const locked = new Set(r && s.open ? r.locked : []);
  $("scores").innerHTML = s.seats.map((seat) => {
    const n = s.scores[seat];
    return `<li class="${locked.has(seat) ? "locked" : ""}">${esc(seat)}${s.bots.includes(seat) ? " <span class='muted'>(bot)</span>" : ""} <b>${n}</b> <span class="pips">${"●".repeat(n)}</span>${locked.has(seat) ? " <span class='bad'>out</span>" : ""}${s.turner === seat ? " <span class='muted'>(turns)</span>" : ""}</li>`;
  }).join("");
  $("meta").textContent = `${s.target ? "first to " + s.target : "until the deck is used up"} · ${s.variant} · ${s.pile} cards left · ${s.boxed} in the box`;
  // claims on this card
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
  // winner
  const w = $("winner");
  if (s.winners.length) {
    w.hidden = false;
    w.innerHTML = `★ ${s.winners.map(esc).join(" & ")} ${s.winners.length > 1 ? "share the win" : "wins!"}<small>${s.seats.map((x) => esc(x) + " " + s.scores[x]).join(" · ")}</small>${mayAct() ? '<small><button id="rematch" class="primary">Rematch</button></small>' : ""}`;
    if (mayAct()) $("rematch").onclick = () => api("/api/control", { action: "rematch" }, true).catch((e) => alert(e.message));
    if (!prev || !prev.winners.length) SOUNDS.win();
  } else w.hidden = true;
  // simulation controls
  if (s.sim) {
    $("simctl").hidden = false;
    const humans = s.seats.filter((x) => !s.bots.includes(x));
    if (!simSeat || !humans.includes(simSeat)) simSeat = humans[0] || null;
    $("simseats").innerHTML = humans.map((x, i) => `<button class="${x === simSeat ? "sel" : ""}" data-seat="${esc(x)}">${i + 1} ${esc(x)}</button>`).join("") || "<span class='muted'>all seats are bots</span>";
    $("simseats").querySelectorAll("button").forEach((b) => b.onclick = () => { simSeat = b.dataset.seat; render(last); });
    $("simfigs").innerHTML = FIGS.map((f) => `<button data-fig="${f}">${f}</button>`).join("");
    $("simfigs").querySelectorAll("button").forEach((b) => b.onclick = () => simGrab(b.dataset.fig));
  }
}
// The table screen and staff may answer "who took it?" and start a rematch; a phone watches.
function mayAct() { return viewer.table || viewer.staff; }
function simGrab(fig) {
  if (!simSeat) return;
  api("/api/sim/grab", { seat: simSeat, figure: fig }).catch((e) => { $("status").textContent = e.message; });
}
document.addEventListener("keydown", (e) => {
  if (!last || !last.sim) return;
  const humans = last.seats.filter((x) => !last.bots.includes(x));
  if (/^[1-8]$/.test(e.key) && humans[+e.key - 1]) { simSeat = humans[+e.key - 1]; render(last); }
  else if (KEYS[e.key]) simGrab(KEYS[e.key]);
  else if (e.key === "m") $("mute").click();
});
Live.on((s) => render(s, true));
