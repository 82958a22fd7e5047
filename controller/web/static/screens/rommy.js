// 500 / Rommy's screen: the melds on the table per player (tap one to lay off on it), the
// open pile fanned so every card shows, the stock, taking the whole pile with its 50-point
// warning before it is final, closing and "one more round" announced, the score sheet.
import {
  actButtons, backPic, cardPic, cardWords, fourColour, handHTML, keepFitted, keyed, news,
  otherMoves, resultBox, seatStrip, sortHand, topBar, turnLine, wire, guarded,
} from "/static/cards.js";

let sel = new Set(); // keys of the selected cards
let said = "";
let armed = null;    // the step at which "take the whole pile" was tapped once
let choose = null;   // {card, meld, acts}: a lay-off that fits both ends of a run
let last = null;

function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].sort(), y = [...b].sort();
  return x.every((c, i) => c === y[i]);
}

// The seat a meld is shown under: who put most of its cards down (the first card breaks ties).
function meldOwner(m) {
  const count = {};
  m.owners.forEach((s) => { count[s] = (count[s] || 0) + 1; });
  let best = m.owners[0];
  for (const [s, n] of Object.entries(count)) if (n > count[best]) best = +s;
  return best;
}

export const render = guarded(draw);

function draw(root, v, ctx) {
  keepFitted(root);
  last = [root, v, ctx];
  const o = v.observation || {};
  const opt = o.options || {};
  const legal = v.legal || [];
  const covered = new Set();
  const me = v.seat;
  const nm = ctx.names;
  const mine = me !== null && Array.isArray(o.hand);
  const hand = mine ? sortHand(o.hand, { suits: "CDHS", aceLow: true, highFirst: false }) : [];
  const keys = keyed(hand);
  sel = new Set([...sel].filter((k) => keys.some((x) => x.key === k)));
  const selCards = keys.filter((k) => sel.has(k.key)).map((k) => k.text);
  const myTurn = me !== null && v.actors.includes(me);
  if (armed !== null && armed !== v.step) armed = null;
  if (choose && !choose.acts.every((t) => legal.includes(t))) choose = null;
  const penalty = opt.penalty || 50;

  const cardActs = legal.filter((t) => /^(discard|meld|layoff):/.test(t));
  cardActs.forEach((t) => covered.add(t));
  const usable = new Set(cardActs.flatMap((t) => t.split(":")[1].split(",").filter((x) => /^(10|[2-9AJQK])[HSDC]'?$|^JK\d$/.test(x))));
  const info = (t) => {
    if (usable.has(t)) return { legal: true };
    if (v.over) return { legal: false, reason: "The game is over." };
    if (!myTurn) return { legal: false, reason: `Not your turn: waiting for ${v.actors.map((s) => nm[s]).join(", ")}.` };
    if (o.phase === "draw") return { legal: false, reason: "Draw first: from the stock, the top card of the pile, or the whole pile." };
    if (o.took_pile && o.took_pile.length && opt.pile_rule !== "penalty") return { legal: false, reason: "You took the pile: meld with it before you discard." };
    return { legal: false, reason: "This card fits no meld or lay-off now, and it cannot be discarded." };
  };

  // What the selection can do now.
  const layoffs = selCards.length === 1 ? legal.filter((t) => t.startsWith(`layoff:${selCards[0]},`)) : [];
  const targets = new Set(layoffs.map((t) => t.split(":")[1].split(",")[1]));
  const melds = selCards.length >= 3 ? legal.filter((t) => t.startsWith("meld:") && sameCards(t.slice(5).split(","), selCards)) : [];
  const discard = selCards.length === 1 && legal.includes(`discard:${selCards[0]}`) ? `discard:${selCards[0]}` : null;
  const pics = (list) => list.map((c) => cardPic(c, "cs-small-card")).join("");

  let prompt = "";
  const top = o.pile.length ? o.pile[o.pile.length - 1] : null;
  if (myTurn && o.phase === "draw") {
    const acts = [];
    if (legal.includes("draw")) acts.push(["draw", `Draw from the stock (${o.stock})`, "primary cs-big"]);
    if (legal.includes("take")) acts.push(["take", `Take the top card ${top ? pics([top]) : ""}`, "cs-big"]);
    ["draw", "take"].forEach((t) => covered.add(t));
    let pile = "";
    if (legal.includes("pile")) {
      covered.add("pile");
      const warn = opt.pile_rule === "penalty"
        ? `Taking the whole pile (${o.pile.length} cards) costs <b>${penalty} points</b> unless you meld this turn.`
        : `Taking the whole pile (${o.pile.length} cards): you must then meld${opt.pile_rule === "must_meld_pile_card" ? " with one of its cards" : ""} before you discard.`;
      pile = armed === v.step
        ? `<div class="cs-pilewarning cs-prompt"><p>${warn}</p><div class="row">${actButtons([["pile", "Yes, take the whole pile", "cs-warn cs-big"]])}<button type="button" class="cs-btn cs-disarm">No</button></div></div>`
        : `<button type="button" class="cs-btn cs-big" data-arm="pile">Take the whole pile (${o.pile.length})…</button>`;
    }
    prompt = `<h2>Your turn: draw</h2><p>From the stock, the top card of the open pile, or the whole pile.</p><div class="row">${actButtons(acts)}${pile}</div>`;
  } else if (myTurn && o.phase === "play") {
    const buttons = [];
    melds.forEach((t) => buttons.push([t, `Meld ${pics(t.slice(5).split(","))}`, "primary cs-big"]));
    if (discard) buttons.push([discard, `Discard ${pics(selCards)}${hand.length === 1 ? " and close" : ""}`, melds.length ? "cs-big" : "primary cs-big"]);
    const chooser = choose ? `<p>Which end of the run?</p><div class="row">${actButtons(choose.acts.map((t) => [t, t.endsWith(",lo") ? "Low end" : "High end", "primary cs-big"]))}</div>` : "";
    const hint = selCards.length === 0 ? "Tap cards: three or more to meld, one to lay off (then tap a lit meld) or to discard."
      : selCards.length === 1 ? (targets.size ? "Tap a lit meld to lay this card off, or discard it." : "Discard it, or select more for a meld.")
        : melds.length ? "Meld them:" : selCards.length >= 3 ? "These cards make no meld." : "Select one more card for a meld.";
    const took = o.took_pile && o.took_pile.length && !o.melded_this_turn && opt.pile_rule === "penalty"
      ? `<p class="warn">You took the pile: meld this turn, or lose ${penalty} points.</p>` : "";
    prompt = `<h2>Your turn: meld, lay off, then discard</h2>${took}<p>${hint}</p>${chooser}<div class="row">${actButtons(buttons)}${selCards.length ? '<button type="button" class="cs-btn cs-clear">Clear</button>' : ""}</div>`;
  }

  // One more round / closing, said where everyone sees it.
  const out = o.hand_sizes.map((n, s) => (n === 0 ? s : -1)).filter((s) => s >= 0);
  const oneMore = !v.over && out.length ? `<li class="cs-big-news">${out.map((s) => ctx.esc(nm[s])).join(", ")} went out without a last card: one more round for everyone else.</li>` : "";
  const lines = news(v, ["closed", "no_last_card", "deal_scored", "penalty", "reshuffled", "stock_exhausted", "took_pile"], 3).map((e) => `<li${e.kind === "closed" ? ' class="cs-big-news"' : ""}>${ctx.esc(e.kind === "closed" ? `${e.text.replace(/\.$/, "")}: the deal is closed.` : e.text)}</li>`).join("");

  // Melds per player; each a target when the selected card can be laid off on it.
  const groups = v.seats.map((_, s) => ({ s, melds: [] }));
  (o.melds || []).forEach((m, i) => groups[meldOwner(m)].melds.push([m, i]));
  const meldHTML = groups.filter((g) => g.melds.length).map((g) => `<div class="cs-meldgroup"><h4>${ctx.esc(nm[g.s])}</h4>${g.melds.map(([m, i]) => {
    const cards = m.cards.map((c, k) => cardPic(c, "").replace("</span>", m.owners[k] !== g.s ? `<i class="cs-owner" aria-hidden="true">${ctx.esc((nm[m.owners[k]] || "?").slice(0, 1))}</i></span>` : "</span>")).join("");
    const target = targets.has(String(i));
    return `<button type="button" class="cs-meld${target ? " cs-target" : ""}" data-meld="${i}" aria-label="meld ${i}: ${m.kind} ${m.cards.map(cardWords).join(", ")}${target ? " (lay off here)" : ""}"><small class="cs-meldno">${i}</small>${cards}</button>`;
  }).join("")}</div>`).join("") || '<p class="muted">No melds yet.</p>';
  const pileHTML = o.pile.length ? `<div class="cs-pile cs-row">${o.pile.map((c) => cardPic(c)).join("")}</div>` : '<p class="muted">The open pile is empty.</p>';
  const board = `<section class="cs-board" aria-label="table"><p class="cs-facts"><span>Deal <b>${o.deal + 1}</b></span><span>Stock ${backPic("cs-small-card")} <b>${o.stock}</b></span><span>Game to <b>${opt.target || 500}</b></span></p>`
    + `<h3>Open pile (${o.pile.length}, the top card last)</h3>${pileHTML}<h3>Melds</h3><div class="cs-melds">${meldHTML}</div></section>`;

  const facts = (s) => `${o.hand_sizes[s]} cards · <b>${o.totals[s]}</b> pts${o.penalties[s] ? ` · −${penalty}×${o.penalties[s]}` : ""}${s === o.dealer ? " · dealer" : ""}`
    + (s !== me && o.known_in_hand[s] && o.known_in_hand[s].length ? `<span class="cs-seen">seen going in:</span><span class="cs-row">${pics(o.known_in_hand[s])}</span>` : "");
  const rows = (o.history || []).map((h, d) => `<tr><td>${d + 1}</td>${h.map((p) => `<td>${p > 0 ? "+" : ""}${p}</td>`).join("")}</tr>`).join("");
  const sheet = `<details class="cs-sheet"${v.seat === null ? " open" : ""}><summary>Score sheet (to ${opt.target || 500})</summary><table class="cs-scoresheet"><tr><th>Deal</th>${nm.map((n) => `<th>${ctx.esc(n)}</th>`).join("")}</tr>${rows}<tr><th>Total</th>${o.totals.map((t) => `<th>${t}</th>`).join("")}</tr></table><p class="muted">Melded cards count plus (2–9: 5, 10–K: 10, A: 15, joker: 25), cards left in hand minus.</p></details>`;
  const handBox = mine ? handHTML(hand, { info, selected: sel }) : "";

  root.innerHTML = `<div class="cs cs-rommy${fourColour() ? " cs-four" : ""}" data-legal="${ctx.esc(JSON.stringify(legal))}">`
    + topBar("rommy", "500", v, ctx) + board + seatStrip(v, ctx, facts)
    + (oneMore || lines ? `<ul class="cs-news">${oneMore}${lines}</ul>` : "")
    + (prompt ? `<div class="cs-prompt">${prompt}</div>` : "")
    + `<p class="cs-turnline">${turnLine(v, ctx)}</p>`
    + handBox + `<p class="cs-reason" role="status">${ctx.esc(said)}</p>`
    + resultBox(v, ctx) + otherMoves(legal, covered, ctx.esc) + sheet + "</div>";
  wire(root, v, ctx, () => draw(...last));
  const redraw = () => draw(...last);
  const arm = root.querySelector("[data-arm]");
  if (arm) { arm.onclick = () => { armed = v.step; redraw(); }; arm.disabled = Boolean(ctx.busy); }
  const disarm = root.querySelector(".cs-disarm");
  if (disarm) disarm.onclick = () => { armed = null; redraw(); };
  const clear = root.querySelector(".cs-clear");
  if (clear) clear.onclick = () => { sel = new Set(); choose = null; said = ""; redraw(); };
  root.querySelectorAll(".cs-hand .cs-card").forEach((b) => {
    b.onclick = () => {
      const i = info(b.dataset.card);
      choose = null;
      if (!i.legal) { said = i.reason; redraw(); return; }
      said = "";
      if (sel.has(b.dataset.key)) sel.delete(b.dataset.key); else sel.add(b.dataset.key);
      redraw();
    };
  });
  root.querySelectorAll(".cs-meld").forEach((m) => {
    m.onclick = () => {
      const acts = layoffs.filter((t) => t.split(":")[1].split(",")[1] === m.dataset.meld);
      if (!acts.length) { said = selCards.length === 1 ? `${cardWords(selCards[0])} does not fit meld ${m.dataset.meld}.` : "Select one card of your hand, then tap the meld to lay it off."; redraw(); return; }
      if (acts.length === 1 && !ctx.busy) { sel = new Set(); root.classList.add("cs-busy"); ctx.act(acts[0]); return; }
      choose = { acts }; redraw();
    };
  });
  root.querySelectorAll("[data-act]").forEach((b) => b.addEventListener("click", () => { sel = new Set(); said = ""; choose = null; armed = null; }));
}
