// One deck of card pictures for the card games' screens (Manni, Púkk, 500 / Rommy, KNUFF),
// drawn here as SVG: no image files, no fonts beyond the system's. A card is its canonical
// text (controller/games/cards.py): "QH", "10S", "QH'" (500's second deck), "JK1" (a joker).
// Also the pieces every card screen shares: the hand (sorted, overlapped, tap to select),
// the "other moves" list that keeps every legal action reachable, the header with the rules
// link and the four-colour switch, undo and the result.

const SUIT_NAME = { H: "hearts", S: "spades", D: "diamonds", C: "clubs" };
const RANK_NAME = { A: "ace", K: "king", Q: "queen", J: "jack" };
export const SUIT_SYMBOL = { H: "♥", S: "♠", D: "♦", C: "♣" };
// Two colours (red/black) or four; the four are from the Okabe-Ito palette, which people
// with the common colour-vision deficiencies tell apart; the shapes differ besides.
const TWO = { H: "#c8102e", D: "#c8102e", S: "#111", C: "#111" };
const FOUR = { H: "#d55e00", D: "#0072b2", S: "#111", C: "#007a55" };
const FOUR_KEY = "knapp-cards-four-colour";

export function fourColour() { try { return localStorage.getItem(FOUR_KEY) === "1"; } catch { return false; } }
export function setFourColour(on) { try { localStorage.setItem(FOUR_KEY, on ? "1" : "0"); } catch { /* private mode */ } }
export function suitColour(suit) { return (fourColour() ? FOUR : TWO)[suit] || "#6a1b9a"; }

const LOADED = new Map();
/** Load a stylesheet once (the page's CSP allows 'self' stylesheets, not inline styles);
 * the promise settles when it applies (a hand is fitted only then: its cards' size is in it). */
export function ensureCss(href) {
  if (LOADED.has(href)) return LOADED.get(href);
  const link = document.createElement("link");
  link.rel = "stylesheet"; link.href = href;
  const ready = new Promise((resolve) => { link.onload = resolve; link.onerror = resolve; });
  LOADED.set(href, ready);
  document.head.append(link);
  return ready;
}

/** A card's text as {text, rank ("10", "Q"...), suit ("H"...), second (500's primed copy), joker}. */
export function parseCard(text) {
  const t = String(text);
  if (/^JK\d$/.test(t)) return { text: t, rank: "", suit: "", second: false, joker: true };
  const m = /^(10|[2-9AJQK])([HSDC])('?)$/.exec(t);
  if (!m) return { text: t, rank: t, suit: "", second: false, joker: false };
  return { text: t, rank: m[1], suit: m[2], second: m[3] === "'", joker: false };
}

const RANK_VALUE = { J: 11, Q: 12, K: 13, A: 14 };
/** 2..14, the ace high; 0 for a joker. */
export function rankValue(text) {
  const c = parseCard(text);
  if (c.joker) return 0;
  return RANK_VALUE[c.rank] || Number(c.rank);
}

/** Words for a card, for screen readers and the reason lines ("queen of hearts"). */
export function cardWords(text) {
  const c = parseCard(text);
  if (c.joker) return "joker";
  return `${RANK_NAME[c.rank] || c.rank} of ${SUIT_NAME[c.suit]}${c.second ? " (second deck)" : ""}`;
}

/** A suit as its symbol in its colour, for prompts ("trump ♥"). */
export function suitBadge(suit) {
  return `<span class="cs-suit cs-suit-${suit}">${SUIT_SYMBOL[suit] || suit}</span>`;
}

// Suit shapes in a 100×100 box, so the suits differ by outline as well as by colour.
const SHAPES = {
  H: "M50 92C38 76 6 58 6 32C6 16 18 6 31 6C40 6 47 12 50 20C53 12 60 6 69 6C82 6 94 16 94 32C94 58 62 76 50 92Z",
  D: "M50 4L88 50L50 96L12 50Z",
  S: "M50 4C62 24 94 40 94 62C94 76 84 84 72 84C64 84 57 80 54 74C55 84 59 90 66 96H34C41 90 45 84 46 74C43 80 36 84 28 84C16 84 6 76 6 62C6 40 38 24 50 4Z",
  C: "M50 6A20 20 0 0 1 66 38A20 20 0 1 1 56 70C57 82 61 90 68 96H32C39 90 43 82 44 70A20 20 0 1 1 34 38A20 20 0 0 1 50 6Z",
};
function shape(suit, x, y, size, colour) {
  const k = size / 100;
  return `<path d="${SHAPES[suit]}" fill="${colour}" transform="translate(${x} ${y}) scale(${k})"/>`;
}

// Card face 60×84. The index (rank and suit) sits in the top-left corner, large, because an
// overlapped hand shows only that strip of each card.
export function cardSVG(text) {
  const c = parseCard(text);
  const open = '<svg class="cs-face" viewBox="0 0 60 84" aria-hidden="true" focusable="false">';
  const edge = '<rect x="0.75" y="0.75" width="58.5" height="82.5" rx="5" fill="#fffdf7" stroke="#7a7466" stroke-width="1.5"/>';
  if (c.joker) {
    const col = "#6a1b9a";
    return `${open}${edge}<text x="4" y="19" font-size="17" font-weight="700" fill="${col}" font-family="sans-serif">★</text>`
      + `<text x="5" y="33" font-size="10" font-weight="700" fill="${col}" font-family="sans-serif">${c.text.slice(2)}</text>`
      + `<text x="35" y="50" font-size="13" font-weight="800" fill="${col}" font-family="sans-serif" text-anchor="middle" letter-spacing="1">JOKER</text>`
      + `<path d="M35 56l4 8 9 1-7 6 2 9-8-5-8 5 2-9-7-6 9-1z" fill="${col}"/></svg>`;
  }
  if (!c.suit) return `${open}${edge}<text x="30" y="48" font-size="14" text-anchor="middle" fill="#333">${c.text}</text></svg>`;
  const col = suitColour(c.suit);
  const ten = c.rank === "10";
  const index = `<text x="${ten ? 2 : 4}" y="21" font-size="${ten ? 19 : 22}" font-weight="800" fill="${col}" font-family="sans-serif"${ten ? ' letter-spacing="-2"' : ""}>${c.rank}</text>`
    + shape(c.suit, 4, 25, 15, col);
  const face = RANK_VALUE[c.rank] && c.rank !== "A"
    ? `<rect x="22" y="20" width="32" height="56" rx="3" fill="none" stroke="${col}" stroke-width="1.2"/>`
      + `<text x="38" y="58" font-size="26" font-weight="800" fill="${col}" font-family="serif" text-anchor="middle">${c.rank}</text>`
      + shape(c.suit, 31, 23, 14, col)
    : shape(c.suit, 22, 36, c.rank === "A" ? 34 : 28, col);
  // The second deck of 500 has a mark of its own: a ring in the lower-left corner.
  const second = c.second ? `<circle cx="9" cy="75" r="4" fill="none" stroke="${col}" stroke-width="2"/>` : "";
  // In four colours the card's paper is tinted too, so a suit shows even in the corner strip.
  const tint = fourColour() ? `<rect x="2" y="2" width="15" height="42" rx="3" fill="${col}" opacity="0.12"/>` : "";
  return `${open}${edge}${tint}${index}${face}${second}</svg>`;
}

export function backSVG() {
  return '<svg class="cs-face" viewBox="0 0 60 84" aria-hidden="true" focusable="false">'
    + '<rect x="0.75" y="0.75" width="58.5" height="82.5" rx="5" fill="#1d4e89" stroke="#0d2a4d" stroke-width="1.5"/>'
    + '<rect x="5" y="5" width="50" height="74" rx="3" fill="none" stroke="#9cc3f0" stroke-width="1.2"/>'
    + '<path d="M30 12L50 42L30 72L10 42Z" fill="none" stroke="#9cc3f0" stroke-width="1.2"/></svg>';
}

/** One card picture that is not in a hand (trick, pile, melds): a span with its label. */
export function cardPic(text, extra = "") {
  return `<span class="cs-card cs-static ${extra}" data-card="${text}" role="img" aria-label="${cardWords(text)}">${cardSVG(text)}</span>`;
}
export function backPic(extra = "") {
  return `<span class="cs-card cs-static cs-back ${extra}" role="img" aria-label="a face-down card">${backSVG()}</span>`;
}

/** A sort key for a hand: suits in `suits` order (letters), ranks high first unless `low`. */
export function sortHand(hand, { suits = "HSDC", aceLow = false, highFirst = true } = {}) {
  const key = (t) => {
    const c = parseCard(t);
    if (c.joker) return 1000 + Number(t.slice(2));
    let r = rankValue(t);
    if (aceLow && r === 14) r = 1;
    const s = suits.indexOf(c.suit);
    return s * 100 + (highFirst ? 20 - r : r) + (c.second ? 0.5 : 0);
  };
  return [...hand].sort((a, b) => key(a) - key(b));
}

/** Each card of a hand with a key of its own (two packs may hold the same text twice). */
export function keyed(hand) {
  const seen = {};
  return hand.map((t) => { seen[t] = (seen[t] || 0) + 1; return { text: t, key: `${t}#${seen[t]}` }; });
}

/**
 * The hand as buttons. `info(text)` -> {legal: bool, reason: text}; `selected`: a Set of keys.
 * Cards that cannot be used now are dimmed; a tap on one says why (the screen decides).
 */
export function handHTML(hand, { info, selected, label = "Your hand" }) {
  const cards = keyed(hand).map(({ text, key }) => {
    const i = info ? info(text) : { legal: true };
    const cls = ["cs-card", i.legal ? "cs-legal" : "cs-dim", selected && selected.has(key) ? "cs-sel" : ""].join(" ");
    const pressed = selected && selected.has(key) ? "true" : "false";
    return `<button type="button" class="${cls}" data-key="${key}" data-card="${text}" aria-pressed="${pressed}" aria-label="${cardWords(text)}${i.legal ? "" : " (cannot be used now)"}">${cardSVG(text)}</button>`;
  }).join("");
  return `<div class="cs-hand" role="group" aria-label="${label}">${cards}</div>`;
}

/** Overlap a row of cards so it fits its box: set each card's left margin (CSSOM, CSP-safe). */
export function fitRows(root) {
  root.querySelectorAll(".cs-hand, .cs-fan").forEach((row) => {
    const cards = [...row.children].filter((c) => c.classList.contains("cs-card"));
    if (cards.length < 2) return;
    const width = row.clientWidth;
    const w = cards[0].getBoundingClientRect().width || 56;
    const gap = 4;
    const step = Math.min(w + gap, (width - w - 2) / (cards.length - 1));
    cards.forEach((c, i) => { c.style.marginLeft = i ? `${Math.floor(step - w)}px` : "0px"; });
  });
}

/** Buttons that send one action each: `[text, label, cls, title?]` (the title explains in place). */
export function actButtons(list) {
  return list.map(([text, label, cls, title]) => `<button type="button" class="cs-btn ${cls || ""}" data-act="${escAttr(text)}"${title ? ` title="${escAttr(title)}"` : ""}>${label}</button>`).join("");
}

function escAttr(s) { return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c])); }

/** The legal actions no widget of the screen covers, as a compact list: nothing gets stuck. */
export function otherMoves(legal, covered, esc) {
  const rest = legal.filter((t) => !covered.has(t));
  if (!rest.length) return "";
  return `<details class="cs-other"><summary>Other moves (${rest.length})</summary><div class="cs-other-list">${rest.map((t) => `<button type="button" class="cs-btn cs-small" data-act="${esc(t)}">${esc(t)}</button>`).join("")}</div></details>`;
}

/** The line at the top: the game's name, its rules page and the four-colour switch. */
export function topBar(game, title, v, ctx) {
  const on = fourColour();
  const undo = v.can_undo && ctx.undo ? '<button type="button" class="cs-btn cs-undo" data-undo="1">Undo</button>' : "";
  return `<div class="cs-top"><a class="cs-rules" href="/rules/${game}" target="_blank" rel="noopener">Rules of ${ctx.esc(title)}</a>`
    + `<button type="button" class="cs-btn cs-small cs-colours" aria-pressed="${on}" title="four suit colours (colour-blind safe)">${on ? "4 colours ✓" : "4 colours"}</button>${undo}</div>`;
}

/** Whose turn it is, said plainly. */
export function turnLine(v, ctx) {
  if (v.over) return "";
  const me = v.seat;
  if (me !== null && v.seats[me] && v.seats[me].computer) return `A computer (${ctx.esc(v.seats[me].computer)}) is playing for you.`;
  if (me !== null && v.actors.includes(me)) return "<b>Your turn.</b>";
  return `Waiting for ${ctx.esc(v.actors.map((s) => ctx.names[s]).join(", ")) || "—"}.`;
}

/** The result box when the game is over (winners and final scores). */
export function resultBox(v, ctx, label = "points") {
  if (!v.result) return v.over ? `<div class="cs-result">${ctx.esc(v.closed ? `Room closed: ${v.closed}` : "Game over")}</div>` : "";
  const rows = v.result.returns.map((r, i) => `<li${v.result.winners.includes(i) ? ' class="won"' : ""}>${ctx.esc(ctx.names[i])}: ${ctx.esc(r)} ${label}</li>`).join("");
  const room = location.pathname.split("/")[2] || "";
  return `<div class="cs-result" role="status"><h3>Game over</h3><ol>${rows}</ol><p>Winner: ${ctx.esc(v.result.winners.map((w) => ctx.names[w]).join(" and "))}</p><p><a href="/rooms/${ctx.esc(room)}/replay">Replay this game</a></p></div>`;
}

/** The latest announcements (the log's lines of the given kinds), newest first, kept per room. */
const NEWS = new Map();
export function news(v, kinds, keep = 3) {
  const list = NEWS.get(v.room) || [];
  if (v.log_after === -1) list.length = 0;
  for (const e of v.log || []) if (kinds.includes(e.kind) && !list.some((x) => x.n === e.n)) list.unshift(e);
  list.length = Math.min(list.length, keep);
  NEWS.set(v.room, list);
  return list;
}

/**
 * Wire the screen's controls after it is drawn: action buttons, undo and the colour switch.
 * (A refused action's reason is shown by the room page above the screen.)
 */
export function wire(root, v, ctx, redraw) {
  const busy = ctx.busy;
  root.classList.toggle("cs-busy", Boolean(busy));
  root.querySelectorAll("[data-act]").forEach((b) => {
    b.disabled = Boolean(busy);
    b.onclick = () => { const t = b.dataset.act; if (b.dataset.confirm && !confirm(b.dataset.confirm)) return; root.classList.add("cs-busy"); ctx.act(t); };
  });
  root.querySelectorAll("[data-undo]").forEach((b) => { b.onclick = () => { root.classList.add("cs-busy"); ctx.undo(); }; });
  root.querySelectorAll(".cs-colours").forEach((b) => { b.onclick = () => { setFourColour(!fourColour()); redraw(); }; });
  fitRows(root);
}

// A hand re-fits once the stylesheet applies, and when the phone turns or the window
// changes size.
let fitRoot = null;
export function keepFitted(root) {
  ensureCss("/static/cards.css").then(() => fitRows(root));
  if (fitRoot === root) return;
  fitRoot = root;
  window.addEventListener("resize", () => fitRows(root));
  if (window.ResizeObserver) new ResizeObserver(() => fitRows(root)).observe(root);
}

/** Seat name chips: name, a few facts, the turn marker; `facts(i)` -> HTML. */
export function seatStrip(v, ctx, facts) {
  return `<ol class="cs-seats">${v.seats.map((s, i) => {
    const cls = [v.actors.includes(i) ? "cs-turn" : "", i === v.seat ? "cs-me" : ""].join(" ");
    return `<li class="${cls}" data-seat="${i}"><b>${ctx.esc(ctx.names[i])}${i === v.seat ? " (you)" : ""}</b><span>${facts(i)}</span></li>`;
  }).join("")}</ol>`;
}

/** A small "N cards" fan of backs for another seat's hand (no faces: they are hidden). */
export function backs(n, max = 8) {
  const shown = Math.min(n, max);
  return `<span class="cs-backs" aria-label="${n} cards">${Array.from({ length: shown }, () => '<i class="cs-mini-back"></i>').join("")}<em>${n}</em></span>`;
}

/**
 * A screen's render, guarded: should drawing fail on a view it did not foresee, the screen
 * says so and lists every legal action as a button, so the game can still go on.
 */
export function guarded(draw) {
  return (root, v, ctx) => {
    try {
      draw(root, v, ctx);
    } catch (err) {
      console.error(`screen error: ${err.stack || err}`);
      const legal = v.legal || [];
      root.innerHTML = `<div class="cs" data-legal="${ctx.esc(JSON.stringify(legal))}"><p class="cs-reason">This screen could not draw the table (${ctx.esc(err.message)}); add <code>?plain=1</code> to the address for the plain view. Your moves:</p>`
        + `<div class="cs-other-list">${legal.map((t) => `<button type="button" class="cs-btn" data-act="${ctx.esc(t)}">${ctx.esc(t)}</button>`).join("")}</div></div>`;
      wire(root, v, ctx, () => {});
    }
  };
}
