// Koob's screen, for the lawn: the pitch as a picture with each team's baseline koobs,
// the field koobs and the king as big tappable blocks, the batons left, the throw-ins and
// the placing of a koob that missed twice. High contrast for sunlight, big touch targets.
// Entries are the game's own texts (controller/games/koob.py): toss:D, toss:king,
// baton:F,B,K, koob:in, koob:out, place:clear, place:near. The screen does not second-guess
// the rules: what they refuse comes back with the rule's reason, shown large above.
// A team by its scorekeeper's name, with the number the rules' own messages and the log use
// (seat 0 is "team 1").
let teamNames = ["", ""];
const TEAM = (t) => (teamNames[t] ? `${teamNames[t]} (team ${t + 1})` : `team ${t + 1}`);

let marked = { step: -1, field: new Set(), base: new Set(), king: false };
let tossDraft = "";

function css() {
  if (document.getElementById("koob-css")) return;
  const l = document.createElement("link");
  l.id = "koob-css"; l.rel = "stylesheet"; l.href = "/static/screens/koob.css";
  document.head.append(l);
}

function blocks(kind, team, count, tappable, busy) {
  let out = "";
  for (let i = 0; i < count; i++) {
    const down = tappable && marked[kind].has(`${team}:${i}`);
    const label = `${kind === "base" ? "baseline" : "field"} koob ${i + 1} of ${TEAM(team)}${down ? ", marked down" : ""}`;
    out += tappable
      ? `<button type="button" class="kk-koob ${kind}${down ? " down" : ""}" data-kind="${kind}" data-i="${team}:${i}" aria-pressed="${down}" aria-label="${label}"${busy ? " disabled" : ""}></button>`
      : `<span class="kk-koob ${kind}" role="img" aria-label="${label}"></span>`;
  }
  return out || `<span class="kk-none">${kind === "base" ? "baseline clear" : ""}</span>`;
}

function half(o, t, ctx, target, nm, pos) {
  const h = o.halves[t];
  return `<div class="kk-half kk-t${t} ${pos}${target ? " target" : ""}" data-team="${t}">
    <div class="kk-baseline" aria-label="baseline of ${TEAM(t)}">${blocks("base", t, h.baseline, target, ctx.busy)}</div>
    <div class="kk-field" aria-label="field koobs in the half of ${TEAM(t)}">${blocks("field", t, h.field, target, ctx.busy)}</div>
    <div class="kk-halfname">${TEAM(t)}: ${h.baseline} baseline, ${h.field} field</div>
  </div>`;
}

export function render(root, v, ctx) {
  css();
  const redraw = () => render(root, v, ctx);
  const o = v.observation, esc = ctx.esc, nm = ctx.names, me = v.seat;
  // An open seat's stand-in name ("Seat 1") would read as a second numbering: left out.
  teamNames = [0, 1].map((t) => (/^Seat \d+$/.test(nm[t] ?? "") ? "" : esc(nm[t] ?? "")));
  if (marked.step !== v.step) {
    if (marked.step !== -1 && o.phase !== "toss") tossDraft = "";
    marked = { step: v.step, field: new Set(), base: new Set(), king: false };
  }
  const actor = (t) => v.actors.includes(t);
  const mine = me !== null && actor(me) && !v.over;
  const att = o.attacker, def = att === null ? null : 1 - att;
  const throwing = mine && o.phase === "throw" && me === att;
  // The viewer's own half at the bottom; the table and spectators see team 1 at the bottom.
  const bottom = me === null ? 0 : me, top = 1 - bottom;
  const target = (t) => throwing && t === def;

  const f = marked.field.size, b = marked.base.size, k = marked.king ? 1 : 0;
  const batonsTotal = o.phase === "throw" ? Math.max(o.batons_left, 6) : 6;
  const batons = o.phase === "throw" ? [...Array(batonsTotal).keys()].map((i) => `<span class="kk-baton${i < o.batons_left ? "" : " used"}" aria-hidden="true"></span>`).join("") : "";

  // The big line: whose entry it is and what it is.
  let head = "", entry = "";
  const who = TEAM;
  if (v.over) head = o.winner === null ? "The match is over." : `${who(o.winner)} wins the match!`;
  else if (o.phase === "toss") {
    const waiting = [0, 1].filter((t) => o.tosses[t] === null).map(who).join(" and ");
    head = `Opening toss: each team throws one baton at the king. Waiting for ${waiting}.`;
    if (mine) {
      entry = `<form class="kk-toss" autocomplete="off"><label for="kk-cm">How far from the king did your baton land? (cm)</label>
        <div class="kk-row"><input id="kk-cm" class="kk-num" inputmode="numeric" pattern="[0-9]*" value="${esc(tossDraft)}" aria-label="distance from the king in centimetres">
        <button type="submit" class="kk-go" data-toss="1"${ctx.busy ? " disabled" : ""}>Enter toss</button></div>
        <button type="button" class="kk-btn warn" data-act="toss:king"${ctx.busy ? " disabled" : ""}>Our toss knocked the king over</button></form>`;
    }
  } else if (o.phase === "throw") {
    head = `${who(att)} throws at the koobs of ${TEAM(def)}: baton ${(o.phase === "throw" ? batonsTotal - o.batons_left : 0) + 1} of ${batonsTotal}.`;
    if (throwing) {
      const h = o.halves[def];
      const clear = h.field === 0 && h.baseline === 0;
      let note = "Tap every koob this baton knocked over (and the king if it fell), then Enter.";
      if (b && h.field > f) note = "Field koobs must fall first: baseline koobs knocked before them are stood up again.";
      if (k && !clear && !(f === h.field && b === h.baseline)) note = "The king falls before every koob: that loses the set for you.";
      else if (k) note = "The king falls: the set is decided.";
      entry = `<p class="kk-note">${note}</p>
        <p class="kk-sum">This baton: <b>${f}</b> field, <b>${b}</b> baseline, king <b>${k ? "fell" : "stands"}</b></p>
        <div class="kk-row"><button type="button" class="kk-go" data-act="baton:${f},${b},${k}"${ctx.busy ? " disabled" : ""}>Enter baton</button>
        <button type="button" class="kk-btn" data-act="baton:0,0,0"${ctx.busy ? " disabled" : ""}>Missed: nothing fell</button></div>`;
    }
  } else if (o.phase === "throw_in") {
    head = `${who(def)} throws its ${o.knocked} knocked koob${o.knocked === 1 ? "" : "s"} into the half of ${TEAM(att)}: attempt ${o.attempt} of 2.`;
    if (mine) {
      entry = `<div class="kk-row"><button type="button" class="kk-go" data-act="koob:in"${ctx.busy ? " disabled" : ""}>Landed in their half</button>
        <button type="button" class="kk-btn" data-act="koob:out"${ctx.busy ? " disabled" : ""}>Missed</button></div>`;
    }
  } else if (o.phase === "place") {
    head = `A koob missed twice: ${who(att)} places it in its own half, wherever it likes.`;
    if (mine) {
      entry = `<div class="kk-row"><button type="button" class="kk-go" data-act="place:clear"${ctx.busy ? " disabled" : ""}>Placed at least a baton length from the king and the corner pegs</button>
        <button type="button" class="kk-btn" data-act="place:near"${ctx.busy ? " disabled" : ""}>Placed nearer than that</button></div>`;
    }
  }
  if (!v.over && !mine && me !== null) entry = `<p class="kk-wait">Nothing for ${TEAM(me)} to enter now.</p>`;

  // Legal entries none of the widgets above make (none today; kept so every move stays reachable).
  const covered = (t) => /^(toss|baton|koob|place):/.test(t);
  const other = mine ? v.legal.filter((t) => !covered(t)) : [];
  const others = other.length ? `<details class="kk-other"><summary>Other entries</summary>${other.map((t) => `<button type="button" class="kk-btn" data-act="${esc(t)}">${esc(t)}</button>`).join(" ")}</details>` : "";

  const tosses = o.phase === "toss"
    ? `<p class="kk-tosses">Tosses: ${[0, 1].map((t) => `${TEAM(t)} ${o.tosses[t] === null ? "–" : o.tosses[t] === "king" ? "hit the king" : `${o.tosses[t]} cm`}`).join(" · ")}</p>` : "";
  const result = v.result ? `<div class="kk-result" role="status">${head.charAt(0).toUpperCase() + head.slice(1)} Sets ${o.sets_won[0]} : ${o.sets_won[1]}. <a href="/rooms/${esc(ctx.room)}/replay">Replay</a></div>` : "";
  const kingTap = throwing;
  const king = kingTap
    ? `<button type="button" class="kk-king${marked.king ? " down" : ""}" data-king="1" aria-pressed="${marked.king}" aria-label="the king${marked.king ? ", marked fallen" : ""}"${ctx.busy ? " disabled" : ""}>♚</button>`
    : `<span class="kk-king${v.over ? " down" : ""}" role="img" aria-label="the king${v.over ? ", fallen" : ""}">♚</span>`;

  root.innerHTML = `<div class="koob${v.role === "table" ? " big-table" : ""}">
    ${result}
    <p class="kk-head" aria-live="polite">${v.over ? "" : head.charAt(0).toUpperCase() + head.slice(1)}</p>
    ${o.phase === "toss" ? entry : ""}
    <div class="kk-pitch" aria-label="the pitch">
      ${half(o, top, ctx, target(top), nm, "far")}
      <div class="kk-mid"><span class="kk-peg l"></span>${king}<span class="kk-peg r"></span></div>
      ${half(o, bottom, ctx, target(bottom), nm, "near")}
    </div>
    ${o.phase === "toss" ? "" : entry}
    ${ctx.undo ? `<div class="kk-row"><button type="button" class="kk-btn" data-undo="1"${ctx.busy ? " disabled" : ""}>Undo our last entry</button></div>` : ""}
    ${others}
    <div class="kk-meta"><span>Set ${o.set} of ${o.best_of === 1 ? "1" : `best of ${o.best_of}`} · sets ${o.sets_won[0]} : ${o.sets_won[1]}</span>
      <span class="kk-batons" aria-label="${o.batons_left} batons left">${batons}${o.phase === "throw" ? ` <b>${o.batons_left}</b> left` : ""}</span>
      <span>${o.knocked && !v.over ? `${o.knocked} knocked, to throw in` : ""}</span>
      <span>${players(o)}</span>
      <a href="/rules/koob?room=${esc(ctx.room)}">rules</a></div>
    ${tosses}
  </div>`;

  root.querySelectorAll("button.kk-koob").forEach((el) => {
    el.onclick = () => { const set = marked[el.dataset.kind]; if (set.has(el.dataset.i)) set.delete(el.dataset.i); else set.add(el.dataset.i); redraw(); };
  });
  root.querySelectorAll("[data-king]").forEach((el) => { el.onclick = () => { marked.king = !marked.king; redraw(); }; });
  root.querySelectorAll("[data-act]").forEach((el) => { el.onclick = () => { if (!ctx.busy) ctx.act(el.dataset.act); }; });
  root.querySelectorAll("[data-undo]").forEach((el) => { el.onclick = () => { if (!ctx.busy && ctx.undo) ctx.undo(); }; });
  const form = root.querySelector("form.kk-toss");
  if (form) {
    const input = root.querySelector("#kk-cm");
    input.oninput = () => { tossDraft = input.value; };
    form.onsubmit = (e) => {
      e.preventDefault();
      if (ctx.busy) return;
      const text = input.value.trim();
      // Whatever was typed goes to the rules; they answer with what a toss may be.
      ctx.act(`toss:${/^\d+$/.test(text) ? String(Number(text)) : text || "?"}`);
    };
  }
}

function players(o) {
  const n = o.players_per_team;
  return `${n} player${n === 1 ? "" : "s"} a team.`;
}
