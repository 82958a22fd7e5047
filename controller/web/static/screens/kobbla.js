// Kobbla's screen: the 6 x 8 board with rank and file labels, the white stones and both
// Kobbs. Tap a stone: where it can go lights up; a jump chain is entered square by square
// (or by tapping its end at once) and drawn; tap the end again, or Move, to play it.
// Actions are the game's own texts (controller/games/kobbla.py): place:c1, white:c4,c6,
// skip, kobb:d3, exit:c8, stay. Anything legal the board does not cover is listed as text.
const FILES = "abcdef";
const COLS = 6, ROWS = 8;
const SIDE = ["South", "North"];
const name = (sq) => FILES[sq % COLS] + (Math.floor(sq / COLS) + 1);
const index = (n) => FILES.indexOf(n[0]) + (Number(n.slice(1)) - 1) * COLS;
const row = (sq) => Math.floor(sq / COLS), col = (sq) => sq % COLS;

let sel = null; // { kind: "white" | "kobb", start, path: [squares] }
let selStep = -1, prevBoard = null, prevStep = -1, changed = new Set(), options = null, asked = false;
let lastMove = null; // the last white chain, from the log ("white-moved": its path, stones between)

function css() {
  if (document.getElementById("kobbla-css")) return;
  const l = document.createElement("link");
  l.id = "kobbla-css"; l.rel = "stylesheet"; l.href = "/static/screens/kobbla.css";
  document.head.append(l);
}

function fetchOptions(room, redraw) {
  if (asked || !room) return;
  asked = true;
  fetch(`/api/rules/kobbla?room=${encodeURIComponent(room)}`).then((r) => (r.ok ? r.json() : null))
    .then((d) => { if (d) { options = d.options; redraw(); } }).catch(() => null);
}

// The board: 48 ints (1 = a white stone, with or without a Kobb), from the rows (rank 8 first).
function parseBoard(rows) {
  const b = new Array(COLS * ROWS).fill(0);
  rows.forEach((text, i) => { const r = ROWS - 1 - i; [...text].forEach((ch, c) => { b[r * COLS + c] = ch === "." ? 0 : 1; }); });
  return b;
}
function step(sq, d) { // 0 up (towards rank 8), 1 down, 2 right, 3 left; -1 off the board
  const r = row(sq) + [1, -1, 0, 0][d], c = col(sq) + [0, 0, 1, -1][d];
  return r < 0 || r >= ROWS || c < 0 || c >= COLS ? -1 : r * COLS + c;
}

// One hop of a white chain from the path's end, by the room's white_jump option.
function hops(board, mode, path) {
  const start = path[0], cur = path[path.length - 1], out = [];
  const free = (sq) => sq >= 0 && !board[sq] && !path.includes(sq);
  if (mode === "bent") {
    for (let d = 0; d < 4; d++) {
      const via = step(cur, d);
      if (via < 0 || !board[via] || via === start) continue;
      for (let e = 0; e < 4; e++) { const land = step(via, e); if (free(land) && !out.includes(land)) out.push(land); }
    }
    return out;
  }
  for (let d = 0; d < 4; d++) {
    if (mode === "straight-line" && path.length > 1) {
      // Every jump of the chain in the first jump's direction.
      const a = path[0], b = path[1];
      const first = row(b) > row(a) ? 0 : row(b) < row(a) ? 1 : col(b) > col(a) ? 2 : 3;
      if (d !== first) continue;
    }
    const via = step(cur, d), land = via < 0 ? -1 : step(via, d);
    if (via >= 0 && board[via] && via !== start && free(land)) out.push(land);
  }
  return out;
}
// Every square a chain from `start` reaches, with one shortest path to each.
function chains(board, mode, start) {
  const paths = new Map(), queue = [[start]];
  for (const p of queue) {
    for (const land of hops(board, mode, p)) {
      if (paths.has(land)) continue;
      const q = [...p, land]; paths.set(land, q); queue.push(q);
    }
  }
  return paths;
}
// The white_jump option: the room's (public) options, else the one whose moves are the legal ones.
function jumpMode(board, kobbs, legalWhite) {
  if (options && options.white_jump) return options.white_jump;
  for (const mode of ["bent", "straight", "straight-line"]) {
    const got = new Set();
    for (let sq = 0; sq < COLS * ROWS; sq++) {
      if (!board[sq] || kobbs.includes(sq)) continue;
      for (const end of chains(board, mode, sq).keys()) got.add(`${name(sq)},${name(end)}`);
    }
    if (got.size === legalWhite.size && [...legalWhite].every((m) => got.has(m))) return mode;
  }
  return "bent";
}
// The straight tail behind an exit square (stones towards home, up to the other Kobb).
function tailAt(board, seat, exitSq, other) {
  const out = [];
  let cur = exitSq;
  while (cur >= 0 && board[cur] && cur !== other) { out.push(cur); cur = step(cur, seat === 0 ? 1 : 0); }
  return out;
}
const stones = (n) => `<span class="kb-tail" aria-label="tail of ${n}">${'<span class="kb-stone mini"></span>'.repeat(n)}</span>`;

function parseLegal(legal) {
  const L = { place: new Set(), white: new Map(), kobb: new Set(), exit: new Set(), other: [] };
  for (const t of legal) {
    const [kind, args] = t.split(":");
    if (kind === "place") L.place.add(args);
    else if (kind === "white") {
      const [a, b] = args.split(",");
      if (!L.white.has(a)) L.white.set(a, new Set());
      L.white.get(a).add(b);
    } else if (kind === "kobb") L.kobb.add(args);
    else if (kind === "exit") L.exit.add(args);
    else if (kind !== "stay") L.other.push(t);
  }
  L.stay = legal.includes("stay");
  L.whiteSet = new Set([...L.white].flatMap(([a, ends]) => [...ends].map((b) => `${a},${b}`)));
  return L;
}

export function render(root, v, ctx) {
  css();
  const redraw = () => render(root, v, ctx);
  fetchOptions(ctx.room, redraw);
  const o = v.observation, esc = ctx.esc, nm = ctx.names;
  const board = parseBoard(o.board);
  const kobbs = o.kobbs.map((k) => (k ? index(k) : -1));
  if (v.step !== selStep) { sel = null; selStep = v.step; }
  for (const e of v.log) if (e.kind === "white-moved" && Array.isArray(e.data.path)) lastMove = e.data;
  if (v.step !== prevStep) {
    // What the last move changed: stones gone and stones arrived, Kobbs moved.
    changed = new Set();
    if (prevBoard) board.forEach((x, sq) => { if (x !== prevBoard.board[sq] || kobbs.includes(sq) !== prevBoard.kobbs.includes(sq)) changed.add(sq); });
    prevBoard = { board, kobbs }; prevStep = v.step;
  }
  const me = v.seat, mine = me !== null && v.actors.includes(me) && !v.over;
  const L = parseLegal(mine ? v.legal : []);
  const mode = L.white.size ? jumpMode(board, kobbs, L.whiteSet) : "bent";
  // The board is seen from the viewer's side: North's phone has rank 8 at the bottom.
  const flip = me === 1;
  const other = me === null ? -1 : kobbs[1 - me];
  if (mine && o.phase === "k" && !sel && kobbs[me] >= 0) sel = { kind: "kobb", start: kobbs[me], path: [kobbs[me]] };

  // What each square does when tapped, and how it is lit.
  const lit = new Map(); // sq -> its classes
  const light = (sq, ...cls) => { if (!lit.has(sq)) lit.set(sq, new Set()); cls.forEach((c) => lit.get(sq).add(c)); };
  let reach = new Map(), next = [];
  if (sel && sel.kind === "white") {
    const ends = L.white.get(name(sel.start)) || new Set();
    reach = chains(board, mode, sel.start);
    for (const e of ends) light(index(e), "reach");
    next = hops(board, mode, sel.path).filter((sq) => ends.has(name(sq)));
    next.forEach((sq) => light(sq, "next"));
    sel.path.slice(1).forEach((sq) => light(sq, "path"));
    light(sel.start, "from");
  } else if (sel && sel.kind === "kobb") {
    for (const d of L.kobb) light(index(d), "reach");
    for (const d of L.exit) light(index(d), "exit", index(d) === sel.start ? "from" : "reach");
    light(sel.start, "from");
    if (sel.pick !== undefined) {
      light(sel.pick, "picked");
      // Leaving from there takes this tail out (the straight run back home).
      if (L.exit.has(name(sel.pick)) && !(options && options.tail === "bent")) tailAt(board, me, sel.pick, other).forEach((sq) => light(sq, "tail"));
    }
  }
  if (mine && o.phase === "w" && !sel) for (const a of L.white.keys()) light(index(a), "movable");
  if (mine && o.phase === "p") for (const p of L.place) light(index(p), "reach");

  const ranks = [...Array(ROWS).keys()].map((i) => (flip ? i : ROWS - 1 - i));
  const files = [...Array(COLS).keys()].map((i) => (flip ? COLS - 1 - i : i));
  let cells = "";
  for (const r of ranks) {
    cells += `<span class="kb-rank">${r + 1}</span>`;
    for (const c of files) {
      const sq = r * COLS + c, n = name(sq);
      const who = kobbs.indexOf(sq);
      const piece = who >= 0 ? `<span class="kb-kobb kb-k${who}" aria-hidden="true">${who === 0 ? "S" : "N"}</span>`
        : board[sq] ? '<span class="kb-stone" aria-hidden="true"></span>' : "";
      const cls = ["kb-sq", (r + c) % 2 ? "lt" : "dk", ...(lit.get(sq) || []), changed.has(sq) ? "changed" : "",
        r === 0 || r === ROWS - 1 ? "home" : ""].join(" ");
      const what = who >= 0 ? `${SIDE[who]}'s Kobb` : board[sq] ? "white stone" : "empty";
      cells += `<button type="button" class="${cls}" data-sq="${n}" aria-label="${n}: ${what}"${ctx.busy ? " disabled" : ""}>${piece}</button>`;
    }
  }
  cells += '<span class="kb-corner"></span>' + files.map((c) => `<span class="kb-file">${FILES[c]}</span>`).join("");

  // The chain drawn over the board, in square units (0-6 across, 0-8 down as shown).
  let svg = "";
  const pt = (sq) => { const x = files.indexOf(col(sq)) + 0.5, y = ranks.indexOf(row(sq)) + 0.5; return `${x},${y}`; };
  if (!(sel && sel.path.length > 1) && lastMove && lastMove.path.every((n) => /^[a-f][1-8]$/.test(n))) {
    // The last white move's chain, dashed, so a move made elsewhere can be followed.
    svg = `<svg class="kb-path last" viewBox="0 0 ${COLS} ${ROWS}" preserveAspectRatio="none" aria-hidden="true"><polyline points="${lastMove.path.map((n) => pt(index(n))).join(" ")}"/></svg>`;
  }
  if (sel && sel.path.length > 1) {
    // Through the stone each hop goes over, so a bent hop reads as one.
    const via = (a, b) => [0, 1, 2, 3].map((d) => step(a, d)).find((x) => x >= 0 && board[x] && x !== sel.start && [0, 1, 2, 3].some((e) => step(x, e) === b));
    const line = sel.path.flatMap((sq, i) => { const x = i ? via(sel.path[i - 1], sq) : undefined; return x === undefined ? [sq] : [x, sq]; });
    svg = `<svg class="kb-path" viewBox="0 0 ${COLS} ${ROWS}" preserveAspectRatio="none" aria-hidden="true"><polyline points="${line.map(pt).join(" ")}"/>${sel.path.slice(1).map((sq, i) => { const [x, y] = pt(sq).split(","); return `<circle cx="${x}" cy="${y}" r="0.14"/><text x="${x}" y="${y}" dy="0.06">${i + 1}</text>`; }).join("")}</svg>`;
  }

  // The line under the board: what to do now, and the buttons for it.
  let hint = "", bar = "";
  const end = sel && sel.path.length > 1 ? sel.path[sel.path.length - 1] : -1;
  if (v.over) hint = "";
  else if (!mine) hint = me === null ? `${esc(nm[v.actors[0]] ?? "")} (${SIDE[v.actors[0]] ?? ""}) is on turn.` : `Waiting for ${esc(nm[v.actors[0]] ?? "")} (${SIDE[v.actors[0]] ?? ""}).`;
  else if (o.phase === "p") hint = "Put your Kobb on a stone of your home rank: tap a lit stone.";
  else if (o.phase === "w" && !sel) hint = L.white.size ? "You must move one white stone: tap a lit stone (not one carrying a Kobb)." : "No white stone can move.";
  else if (o.phase === "w" && end < 0) hint = `Stone ${name(sel.start)}: tap where it jumps to (bright), hop by hop, or tap a lit end at once.`;
  else if (o.phase === "w") {
    hint = `Chain ${sel.path.map(name).join(" → ")}. ${next.length ? "Jump on, or play it:" : "Play it:"}`;
    bar = `<button type="button" class="primary big" data-act="white:${name(sel.start)},${name(end)}">Move ${name(sel.start)} → ${name(end)}</button> <button type="button" class="big" data-clear="1">Start again</button>`;
  } else if (o.phase === "k") {
    hint = "Now you may move your Kobb along the stones (lit), leave over the far edge, or stay.";
    const pick = sel && sel.pick !== undefined ? sel.pick : -1;
    if (pick >= 0) {
      const n = name(pick), btns = [];
      if (L.kobb.has(n)) btns.push(`<button type="button" class="primary big" data-act="kobb:${n}">Kobb to ${n}</button>`);
      if (L.exit.has(n)) {
        const t = options && options.tail === "bent" ? "" : ` (tail ${tailAt(board, me, pick, other).length})`;
        btns.push(`<button type="button" class="primary big exit" data-act="exit:${n}">Leave from ${n}${t}</button>`);
      }
      bar = btns.join(" ") + ' <button type="button" class="big" data-unpick="1">Back</button>';
    }
    if (L.stay) bar += ` <button type="button" class="big" data-act="stay">Stay (end the turn)</button>`;
  }
  if (ctx.undo && !sel?.path?.[1]) bar += ` <button type="button" class="big" data-undo="1"${ctx.busy ? " disabled" : ""}>Take back the white move</button>`;
  for (const t of L.other) bar += ` <button type="button" class="big" data-act="${esc(t)}">${t === "skip" ? "No white move: pass" : esc(t)}</button>`;

  // Players, Kobbs out and their tails.
  const players = [0, 1].map((s) => {
    const out = o.out.includes(s), onTurn = v.actors.includes(s);
    const state = out ? `out, tail <b>${o.tails[s]}</b> ${stones(o.tails[s])}` : kobbs[s] >= 0 ? `Kobb on ${name(kobbs[s])}` : "Kobb not placed yet";
    return `<li class="kb-p${s}${onTurn ? " turn" : ""}${s === me ? " me" : ""}"><span class="kb-kobb kb-k${s} small">${s === 0 ? "S" : "N"}</span> <b>${esc(nm[s] ?? SIDE[s])}</b> <span class="muted">${SIDE[s]}, leaves over rank ${s === 0 ? 8 : 1}</span> · ${state}</li>`;
  }).join("");
  let result = "";
  if (v.result) {
    const w = v.result.winners.map((s) => esc(nm[s])).join(" and ");
    result = `<div class="kb-result" role="status"><b>${v.result.winners.length > 1 ? "A draw" : `${w} wins`}</b> · tails ${o.tails[0]} : ${o.tails[1]} <a href="/rooms/${esc(ctx.room)}/replay">Replay this game</a></div>`;
  }

  root.innerHTML = `<div class="kobbla${v.role === "table" ? " big-table" : ""}${flip ? " flipped" : ""}">
    ${result}
    <ul class="kb-players">${players}</ul>
    <p class="kb-goal muted">Move white stones into a bridge, run your Kobb across it and out over the far edge: the longest tail of stones behind it wins.</p>
    <p class="kb-meta muted">${v.over ? `Over after ${o.turn} turns` : `Turn ${o.turn + 1} of ${o.max_turns}`} · <a href="/rules/kobbla?room=${esc(ctx.room)}">rules</a></p>
    <div class="kb-board" data-path="${sel ? sel.path.map(name).join(" ") : ""}">${cells}<div class="kb-overlay">${svg}</div></div>
    <p class="kb-hint" aria-live="polite">${hint}</p>
    <div class="kb-bar">${bar}</div>
  </div>`;

  root.querySelectorAll("button.kb-sq").forEach((b) => { b.onclick = () => tap(index(b.dataset.sq)); });
  root.querySelectorAll("[data-act]").forEach((b) => { b.onclick = () => { if (!ctx.busy) { ctx.act(b.dataset.act); sel = null; } }; });
  root.querySelectorAll("[data-undo]").forEach((b) => { b.onclick = () => { if (!ctx.busy && ctx.undo) { sel = null; ctx.undo(); } }; });
  root.querySelectorAll("[data-clear]").forEach((b) => { b.onclick = () => { sel = { ...sel, path: [sel.start] }; redraw(); }; });
  root.querySelectorAll("[data-unpick]").forEach((b) => { b.onclick = () => { delete sel.pick; redraw(); }; });

  function tap(sq) {
    if (!mine || ctx.busy) return;
    const n = name(sq);
    if (o.phase === "p") { if (L.place.has(n)) ctx.act(`place:${n}`); return; }
    if (o.phase === "w") {
      if (L.white.has(n) && (!sel || sel.start !== sq)) { sel = { kind: "white", start: sq, path: [sq] }; redraw(); return; }
      if (!sel) return;
      if (sq === sel.start) { sel = null; redraw(); return; }
      const last = sel.path[sel.path.length - 1];
      if (sq === last) { ctx.act(`white:${name(sel.start)},${n}`); sel = null; return; } // the end again: play it
      const i = sel.path.indexOf(sq);
      if (i > 0) sel.path = sel.path.slice(0, i + 1); // back along the drawn chain
      else if (next.includes(sq)) sel.path.push(sq);
      else if (reach.has(sq) && (L.white.get(name(sel.start)) || new Set()).has(n)) sel.path = reach.get(sq);
      redraw();
      return;
    }
    if (o.phase === "k" && sel) {
      if (L.kobb.has(n) || L.exit.has(n)) {
        if (L.kobb.has(n) && !L.exit.has(n) && sel.pick === sq) { ctx.act(`kobb:${n}`); sel = null; return; }
        sel.pick = sq; redraw();
      }
    }
  }
}
