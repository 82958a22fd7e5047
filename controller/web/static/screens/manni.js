// Manni's screen (room.js calls render(root, view, ctx) on every view): the contract in
// force and its trump, the Manni offer, the trick, tricks taken against the par, the
// running score, the variant's declarations as a sheet, and the hand to play from.
import {
  actButtons, cardPic, ensureCss, fourColour, handHTML, keepFitted, keyed, news, otherMoves,
  parseCard, rankValue, resultBox, seatStrip, sortHand, suitBadge, topBar, turnLine, wire, guarded,
} from "/static/cards.js";

const ROTATION = "HSDC"; // the trump rotation, deal by deal
const CONTRACT_NAME = { H: "Hearts trump", S: "Spades trump", D: "Diamonds trump", C: "Clubs trump", grand: "No trump (grand)", nullo: "Nullo (take few tricks)" };
const VARIANT = {
  basic: "Basic Manni: trump rotates ♥ ♠ ♦ ♣ deal by deal; the Manni may be taken for your whole hand.",
  hornafjordur: "Hornafjörður: the cut card sets the contract (2–5 Nullo, 6–9 trump in its suit, 10–A no trump); lay away up to 7 / 5 / the rest and draw as many.",
  dealers_choice: "Dealer's choice: the dealer names trump, no trump or Nullo, each once; nine deals.",
  laugavatn: "Laugavatn: the declarer names one of six contracts, each once per player; par 8 for the declarer, 4 for the others (Nullo: at most 4 / 6); eighteen deals.",
};
// "Grand" puzzled first-time players: said in place, on the button and beside the contract.
const GRAND_HELP = "Grand: no trump suit; the highest card of the suit led takes each trick.";
const CONTRACT_HELP = { grand: GRAND_HELP, nullo: "Nullo: no trump, ace low; take as few tricks as you can." };
let sel = null; // the key of the selected card
let said = "";  // the reason line for a dimmed card
let last = null;

function contractText(c) {
  if (!c) return "not named yet";
  return CONTRACT_NAME[c] || c;
}

function par(o, seat) {
  if (o.variant !== "laugavatn") return { need: 4, nullo: o.contract === "nullo" };
  const decl = seat === o.declarer;
  if (o.contract === "nullo") return { need: decl ? 4 : 6, nullo: true };
  return { need: decl ? 8 : 4, nullo: false };
}

function ledSuit(o) { return o.trick.length ? parseCard(o.trick[0][1]).suit : null; }

// Who took a trick: the highest trump, else the highest card of the suit led.
function trickWinner(o, trick) {
  if (!trick.length) return null;
  const led = parseCard(trick[0][1]).suit;
  const trump = o.trump;
  const value = (t) => { const r = rankValue(t); return o.contract === "nullo" && r === 14 ? 1 : r; };
  let best = trick[0];
  for (const p of trick.slice(1)) {
    const a = parseCard(best[1]), b = parseCard(p[1]);
    if (b.suit === a.suit ? value(p[1]) > value(best[1]) : b.suit === trump) best = p;
    else if (a.suit !== trump && a.suit !== led && b.suit === led) best = p;
  }
  return best[0];
}

function handOrder(o) {
  const t = o.trump && ROTATION.includes(o.trump) ? o.trump : "H";
  const i = ROTATION.indexOf(t);
  return { suits: ROTATION.slice(i) + ROTATION.slice(0, i), aceLow: o.contract === "nullo" };
}

export const render = guarded(draw);

function draw(root, v, ctx) {
  ensureCss("/static/cards.css");
  keepFitted(root);
  last = [root, v, ctx];
  const o = v.observation || {};
  const legal = v.legal || [];
  const covered = new Set();
  const me = v.seat;
  const nm = ctx.names;
  const mine = me !== null && Array.isArray(o.hand);
  const hand = mine ? sortHand(o.hand, handOrder(o)) : [];
  const keys = keyed(hand);
  if (!keys.some((k) => k.key === sel)) sel = null;
  const selText = sel ? keys.find((k) => k.key === sel).text : null;
  const verb = o.phase === "exchange" ? "discard" : "play";
  const lead = ledSuit(o);

  const info = (t) => {
    if (legal.includes(`${verb}:${t}`)) return { legal: true };
    if (o.phase === "over") return { legal: false, reason: "The game is over." };
    if (!v.actors.includes(me)) return { legal: false, reason: `Not your turn: waiting for ${v.actors.map((s) => nm[s]).join(", ")}.` };
    if (o.phase === "play" && lead && parseCard(t).suit !== lead) return { legal: false, reason: `You must follow suit: ${SUITW[lead]} was led and you hold ${SUITW[lead]}.` };
    if (o.phase === "exchange") return { legal: false, reason: "Lay-away limit reached: tap Done." };
    if (o.phase === "contract") return { legal: false, reason: "Name the contract first." };
    return { legal: false, reason: "This card cannot be used now." };
  };

  // The prompt of the phase, with the buttons that answer it.
  let prompt = "";
  const trumpLine = o.trump ? `Trump ${suitBadge(o.trump)}` : o.contract === "grand" ? GRAND_HELP : o.contract === "nullo" ? "Nullo: no trump, ace low, take as few tricks as you can" : "";
  const declarer = o.declarer >= 0 ? ` · declarer ${ctx.esc(nm[o.declarer])}` : "";
  const cut = o.cut_card ? ` · cut card ${cardPic(o.cut_card, "cs-small-card")}` : "";
  if (o.phase === "contract") {
    const acts = ["H", "S", "D", "C", "grand", "nullo"].map((c) => `contract:${c}`);
    const mineNow = legal.some((t) => t.startsWith("contract:"));
    acts.forEach((t) => covered.add(t));
    const buttons = acts.map((t) => {
      const c = t.split(":")[1];
      const label = c.length === 1 ? `${suitBadge(c)} ${CONTRACT_NAME[c]}` : CONTRACT_NAME[c];
      return legal.includes(t) ? actButtons([[t, label, "cs-big", CONTRACT_HELP[c]]]) : `<button type="button" class="cs-btn cs-big" disabled title="already used">${label}</button>`;
    }).join("");
    prompt = mineNow ? `<h2>Name the contract</h2><p>Each contract once; used ones are greyed. ${GRAND_HELP}</p><div class="row">${buttons}</div>`
      : `<h2>The contract is being named</h2><p>${ctx.esc(nm[v.actors[0]] || "")} chooses.</p>`;
  } else if (o.phase === "exchange") {
    if (legal.includes("swap") || legal.includes("keep")) {
      ["swap", "keep"].forEach((t) => covered.add(t));
      prompt = `<h2>The Manni is offered to you</h2><p>Swap your whole hand for the Manni's ${o.manni_size} face-down cards, or keep your hand. The first swap ends the offer.</p>`
        + `<div class="row">${actButtons([["swap", "Take the Manni", "primary cs-big"], ["keep", "Keep my hand", "cs-big"]].filter(([t]) => legal.includes(t)))}</div>`;
    } else if (legal.includes("take") || legal.includes("pass")) {
      ["take", "pass"].forEach((t) => covered.add(t));
      prompt = `<h2>Take the Manni?</h2><p>Add its ${o.manni_size} cards to your hand, then lay away as many.</p>`
        + `<div class="row">${actButtons([["take", "Take the Manni", "primary cs-big"], ["pass", "Pass", "cs-big"]].filter(([t]) => legal.includes(t)))}</div>`;
    } else if (legal.some((t) => t.startsWith("discard:")) || legal.includes("done")) {
      legal.filter((t) => t.startsWith("discard:")).forEach((t) => covered.add(t));
      covered.add("done");
      const away = (o.my_laid_away || []).length;
      const doneBtn = legal.includes("done") ? actButtons([["done", away ? `Done: draw ${away} from the Manni` : "Done: keep my hand", "cs-big"]]) : "";
      const lay = selText && legal.includes(`discard:${selText}`) ? actButtons([[`discard:${selText}`, `Lay away ${cardPic(selText, "cs-small-card")}`, "primary cs-big"]]) : "";
      prompt = `<h2>Lay cards away</h2><p>Tap a card, then <b>Lay away</b>; one at a time. Then tap Done to draw as many from the Manni.</p>`
        + `<p>Laid away: ${(o.my_laid_away || []).map((c) => cardPic(c, "cs-small-card")).join("") || "none yet"}</p><div class="row">${lay}${doneBtn}</div>`;
    } else {
      const who = v.actors.map((s) => nm[s]).join(", ");
      prompt = `<h2>The Manni</h2><p>${ctx.esc(who)} ${o.variant === "basic" ? "decides whether to take the Manni" : "exchanges with the Manni"}.</p>`;
    }
  } else if (o.phase === "play") {
    legal.filter((t) => t.startsWith("play:")).forEach((t) => covered.add(t));
    const myTurn = v.actors.includes(me);
    const play = selText && legal.includes(`play:${selText}`) ? actButtons([[`play:${selText}`, `Play ${cardPic(selText, "cs-small-card")}`, "primary cs-big cs-play"]]) : "";
    prompt = myTurn ? `<h2>Your turn: play a card</h2><p>${lead ? `Follow ${SUITW[lead]} if you can.` : "You lead this trick."} Tap a card, then Play (or tap it twice).</p><div class="row">${play}</div>`
      : `<h2>Trick in play</h2><p>${turnLine(v, ctx)}</p>`;
  }
  const takenBy = o.manni_taken_by >= 0 ? `${ctx.esc(nm[o.manni_taken_by])} took the Manni` : "";

  // The trick on the table, or the last one with its winner.
  const trick = o.trick.length ? o.trick : o.last_trick;
  const winner = o.trick.length ? null : trickWinner(o, o.last_trick);
  const slots = v.seats.map((_, s) => {
    const p = trick.find((x) => x[0] === s);
    const pic = p ? cardPic(p[1], winner === s ? "cs-won" : "") : '<span class="cs-slot"></span>';
    return `<figure>${pic}<figcaption>${ctx.esc(nm[s])}</figcaption></figure>`;
  }).join("");
  const trickTitle = o.trick.length ? "The trick" : o.last_trick.length ? `Last trick: ${ctx.esc(nm[winner])} took it` : "The trick";

  const target = o.deals ? `${o.deals} deals` : `game to ${o.target}`;
  const facts = (s) => {
    const p = par(o, s);
    const t = o.tricks[s];
    // The par is what the seat needs, not the tricks there are: "3 tricks (par 4)".
    return `<b>${t}</b> trick${t === 1 ? "" : "s"} (${p.nullo ? `par: at most ${p.need}` : `par ${p.need}`}) · <b>${o.scores[s]}</b> pts${s === o.dealer ? " · dealer" : ""}${s === o.declarer ? " · declarer" : ""}`;
  };
  const board = `<section class="cs-board" aria-label="table"><p class="cs-facts"><span>Deal <b>${o.deal}</b> · ${target}</span><span${CONTRACT_HELP[o.contract] ? ` title="${ctx.esc(CONTRACT_HELP[o.contract])}"` : ""}><b>${contractText(o.contract)}</b></span><span>${trumpLine}${declarer}</span>${cut ? `<span>${cut}</span>` : ""}${takenBy ? `<span>${takenBy}</span>` : ""}</p>`
    + `<h3>${trickTitle}</h3><div class="cs-trick">${slots}</div></section>`;

  const scoreRows = (o.history || []).map((h) => `<tr><td>${h.deal}</td><td>${ctx.esc(contractText(h.contract))}</td>${h.points.map((p, i) => `<td>${p > 0 ? "+" : ""}${p} <span class="muted">(${h.tricks[i]})</span></td>`).join("")}</tr>`).join("");
  const sheet = `<details class="cs-sheet"${v.seat === null ? " open" : ""}><summary>Score sheet (${target})</summary><table class="cs-scoresheet"><tr><th>Deal</th><th>Contract</th>${nm.map((n) => `<th>${ctx.esc(n)}</th>`).join("")}</tr>${scoreRows}<tr><th colspan="2">Total</th>${o.scores.map((s) => `<th>${s}</th>`).join("")}</tr></table></details>`;
  const used = o.used_contracts || [];
  const declRows = ["H", "S", "D", "C", "grand", "nullo"].map((c) => `<tr><td>${c.length === 1 ? suitBadge(c) : ""} ${CONTRACT_NAME[c]}</td>${nm.map((_, s) => `<td>${(used[s] || []).includes(c) || ((used[s] || []).includes("trump") && c.length === 1) ? "✓" : ""}</td>`).join("")}</tr>`).join("");
  const decl = `<details class="cs-sheet"><summary>Declarations of this variant</summary><p>${ctx.esc(VARIANT[o.variant] || o.variant)}</p>`
    + (o.variant === "basic" || o.variant === "hornafjordur" ? `<p>Trump this deal: ${o.trump ? suitBadge(o.trump) : contractText(o.contract)}. Score: +1 per trick above 4, −1 per trick short of 4${o.variant === "hornafjordur" ? " (Nullo: the other way round)" : ""}.</p>`
      : `<table><tr><th>Contract</th>${nm.map((n) => `<th>${ctx.esc(n)}</th>`).join("")}</tr>${declRows}</table><p class="muted">✓ = already named by that player.</p>`)
    + "</details>";

  const reason = said ? `<p class="cs-reason" role="status">${ctx.esc(said)}</p>` : '<p class="cs-reason"></p>';
  const handBox = mine ? handHTML(hand, { info: (t) => info(t), selected: new Set(sel ? [sel] : []), label: "Your hand" }) : "";
  const lines = news(v, ["swap", "take", "score", "contract", "cut"]).map((e) => `<li>${ctx.esc(e.text)}</li>`).join("");

  root.innerHTML = `<div class="cs cs-manni${fourColour() ? " cs-four" : ""}" data-legal="${ctx.esc(JSON.stringify(legal))}">`
    + topBar("manni", "Manni", v, ctx)
    + board
    + seatStrip(v, ctx, facts)
    + (lines ? `<ul class="cs-news">${lines}</ul>` : "")
    + (prompt ? `<div class="cs-prompt">${prompt}</div>` : "")
    + `<p class="cs-turnline">${turnLine(v, ctx)}</p>`
    + handBox + reason
    + resultBox(v, ctx)
    + otherMoves(legal, covered, ctx.esc)
    + sheet + decl + "</div>";
  wire(root, v, ctx, () => draw(...last));
  root.querySelectorAll(".cs-hand .cs-card").forEach((b) => {
    b.onclick = () => {
      const t = b.dataset.card, i = info(t);
      if (!i.legal) { sel = null; said = i.reason; draw(...last); return; }
      said = "";
      if (sel === b.dataset.key && !ctx.busy) { sel = null; root.querySelector(".cs").classList.add("cs-busy"); ctx.act(`${verb}:${t}`); return; }
      sel = b.dataset.key; draw(...last);
    };
  });
  // A sent move clears the selection for the next view.
  root.querySelectorAll("[data-act]").forEach((b) => b.addEventListener("click", () => { sel = null; said = ""; }));
}

const SUITW = { H: "hearts ♥", S: "spades ♠", D: "diamonds ♦", C: "clubs ♣" };
