// The dispute review: stored matches, one match's rounds on a timeline, corrections
// and evidence holds (staff). An open card is shown without its answer.
import { Live, api, esc } from "/static/live.js";
let current = new URLSearchParams(location.search).get("match");
async function loadList() {
  const list = await (await fetch("/api/matches")).json();
  if (!current && list.length) current = list[0].match_id;
  document.getElementById("matches").innerHTML = list.map((m) =>
    `<li data-id="${esc(m.match_id)}" class="${m.match_id === current ? "sel" : ""}">
      ${esc(m.created_utc)} ${m.live ? "<b>(live)</b>" : ""}<br>
      <span class="muted">${(m.seats || []).map((s) => esc(s) + " " + m.scores[s]).join(" · ")}
      ${m.winners && m.winners.length ? "· ★ " + m.winners.map(esc).join(", ") : m.abandoned ? "· abandoned" : ""}</span></li>`).join("");
  document.querySelectorAll("#matches li").forEach((li) => li.onclick = () => { current = li.dataset.id; history.replaceState(null, "", "?match=" + current); loadList(); loadMatch(); });
}
function timelineBar(r) {
  const items = r.claims.map((c) => ({ ms: c.reaction_ms, label: `${c.seat} ${c.figure}`, cls: c.correct == null ? "" : c.correct ? "good" : "bad" }));
  const max = Math.max(500, ...items.map((i) => i.ms)) * 1.1;
  // Positions go in data-left and are set through the CSSOM after rendering:
  // the Content-Security-Policy allows no inline style attributes.
  return `<div class="bar"><div class="tick reveal"><span>reveal (${esc(r.reveal_measure)})</span></div>` +
    items.map((i) => `<div class="tick ${i.cls}" data-left="${Math.max(0, Math.min(100, i.ms / max * 100)).toFixed(2)}"><span>${esc(i.label)} ${i.ms.toFixed(1)} ms</span></div>`).join("") + "</div>";
}
let lastMatchText = "";
async function loadMatch() {
  if (!current) return;
  const r = await fetch("/api/matches/" + encodeURIComponent(current));
  if (!r.ok) { document.getElementById("detail").innerHTML = `<div class="panel bad">${esc((await r.json()).detail || r.statusText)}</div>`; return; }
  const text = await r.text();
  // Re-rendering identical data would only reset a half-filled correction form.
  if (text === lastMatchText && document.getElementById("detail").childElementCount) return;
  lastMatchText = text;
  const m = JSON.parse(text);
  const rounds = m.rounds.slice().reverse().map((rd) => `
    <div class="panel round" id="round-${rd.index}">
      <img src="/api/cards/${encodeURIComponent(rd.card)}.svg" alt="${esc(rd.card)}">
      <div>
        <h2>Card ${rd.index + 1}: ${esc(rd.card)} → ${rd.answer_title ? esc(rd.answer_title) : "(open)"}</h2>
        <div><b>${esc(rd.outcome || "open")}</b>${rd.winner ? ": " + esc(rd.winner) : ""}
          ${rd.margin_ms != null ? ` · margin ${rd.margin_ms} ms ± ${rd.uncertainty_ms} ms` : ""}
          ${rd.too_close ? ' · <span class="warn">too close to call</span>' : ""}</div>
        <div class="muted">${esc(rd.reason)}</div>
        ${timelineBar(rd)}
        <table><tr><th>seat</th><th>figure</th><th>reaction</th><th>±</th><th>source</th><th></th></tr>
          ${rd.claims.map((c) => `<tr><td>${esc(c.seat)}</td><td>${esc(c.figure)}</td><td>${c.reaction_ms.toFixed(3)} ms</td><td>${c.uncertainty_ms} ms</td><td>${esc(c.source)}</td>
            <td>${c.correct == null ? '<span class="muted">open</span>' : c.correct ? '<span class="good">correct</span>' : '<span class="bad">wrong</span>'}${c.anticipation ? ' <span class="warn">anticipation</span>' : ""}${c.counted === false ? " (after the winner)" : ""}</td></tr>`).join("")}
        </table>
        <p class="muted">${rd.explanation ? esc(rd.explanation) : ""}</p>
        ${rd.evidence.length ? "<p>Evidence: " + rd.evidence.map((e) => `${esc(e.name)} <code>${esc(e.sha256.slice(0, 16))}…</code>
          ${e.ref ? `<button class="hold" data-ref="${esc(e.ref)}" data-keep="${e.held ? "0" : "1"}">${e.held ? "Release (kept until released)" : "Keep until released"}</button>` : ""}`).join(", ") + "</p>" : ""}
        ${rd.corrections.map((c) => `<p class="warn">Correction: ${esc(c.kind)}${c.seat ? " to " + esc(c.seat) : ""}: ${esc(c.reason)} (was ${esc(c.was)}${c.winner ? ", " + esc(c.winner) : ""})</p>`).join("")}
        <div class="corr">
          <select data-r="${rd.index}" class="seat">${m.seats.map((s) => `<option>${esc(s)}</option>`).join("")}</select>
          <input data-r="${rd.index}" class="reason" placeholder="reason" maxlength="200">
          <button data-r="${rd.index}" data-k="award">Give card</button>
          <button data-r="${rd.index}" data-k="void">Void</button>
          ${rd.index === m.rounds.length - 1 ? `<button data-r="${rd.index}" data-k="undo">Undo verdict</button>` : ""}
        </div>
      </div>
    </div>`).join("");
  document.getElementById("detail").innerHTML =
    `<div class="panel"><h2>Match ${esc(m.match_id)}</h2>${m.seats.map((s) => esc(s) + " " + m.scores[s]).join(" · ")} · ${esc(m.phase)}
     ${m.winners.length ? " · ★ " + m.winners.map(esc).join(", ") : ""}</div>` + (rounds || '<div class="panel muted">No cards yet.</div>');
  document.querySelectorAll(".bar .tick[data-left]").forEach((t) => { t.style.left = t.dataset.left + "%"; });
  document.querySelectorAll(".corr select").forEach((el) => el.onchange = () => { el.dataset.touched = "1"; });
  document.querySelectorAll("button.hold").forEach((b) => b.onclick = async () => {
    try { await api(`/api/matches/${encodeURIComponent(current)}/evidence/${encodeURIComponent(b.dataset.ref)}/hold`, { keep: b.dataset.keep === "1" }, true); lastMatchText = ""; loadMatch(); }
    catch (e) { alert(e.message); }
  });
  document.querySelectorAll(".corr button").forEach((b) => b.onclick = async () => {
    const r = +b.dataset.r, box = b.parentElement;
    const reason = box.querySelector(".reason").value.trim();
    if (!reason) { alert("A correction needs a reason."); return; }
    const body = { kind: b.dataset.k, reason, round: r };
    if (b.dataset.k === "award") body.seat = box.querySelector(".seat").value;
    try { await api(`/api/matches/${encodeURIComponent(current)}/corrections`, body, true); loadMatch(); loadList(); }
    catch (e) { alert(e.message); }
  });
}
loadList().then(loadMatch);
// Live refresh, but never while someone is writing a correction (it would wipe the form).
function editing() { return [...document.querySelectorAll(".corr input")].some((i) => i.value) || !!document.querySelector(".corr select[data-touched]") || !!document.activeElement.closest(".corr"); }
Live.on((s) => { if (s.match_id === current && !editing()) { clearTimeout(window._t); window._t = setTimeout(() => { if (!editing()) { loadMatch(); loadList(); } }, 300); } });
