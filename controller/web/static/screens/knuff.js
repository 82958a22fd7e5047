// KNUFF's screen: the pile and its top card, the cards left to draw, each player's letters
// K-N-U-F-F and hand minimum; the parknuff as one large button on the phones that may use
// it, only while they may; hel-knuff, sengeknuff and the no-draw phase announced.
import {
  actButtons, backPic, cardPic, cardWords, fourColour, handHTML, keepFitted, keyed, news,
  otherMoves, parseCard, resultBox, seatStrip, sortHand, suitBadge, topBar, turnLine, wire, guarded,
} from "/static/cards.js";

const PICTURES = ["J", "Q", "K", "A"];

let sel = new Set(), said = "", last = null;

function letters(text) {
  return `<span class="cs-letters" aria-label="letters ${text || "none"}">${[..."KNUFF"].map((ch, i) => `<span class="${i < text.length ? "on" : "off"}">${ch}</span>`).join("")}</span>`;
}

function sameCards(a, b) {
  const x = [...a].sort(), y = [...b].sort();
  return x.length === y.length && x.every((c, i) => c === y[i]);
}

// The playing rule in words, for the card that will not go on `top`.
function ruleFor(top) {
  if (!top) return "Anything goes on an empty pile.";
  const c = parseCard(top);
  return `On ${cardWords(top)} you may play a J, Q, K or A, any ${c.rank}, or a ${c.suit ? suitName(c.suit) : ""} card of ${c.rank} or lower.`;
}
function suitName(s) { return { H: "heart", S: "spade", D: "diamond", C: "club" }[s]; }

export const render = guarded(draw);

function draw(root, v, ctx) {
  keepFitted(root);
  last = [root, v, ctx];
  const o = v.observation || {};
  const legal = v.legal || [];
  const covered = new Set();
  const me = v.seat;
  const nm = ctx.names;
  const mine = me !== null && Array.isArray(o.hand);
  const hand = mine ? sortHand(o.hand, { suits: "HSDC", highFirst: false }) : [];
  const keys = keyed(hand);
  sel = new Set([...sel].filter((k) => keys.some((x) => x.key === k)));
  const selCards = keys.filter((k) => sel.has(k.key)).map((k) => k.text);
  const myTurn = me !== null && v.actors.includes(me);
  const plays = legal.filter((t) => t.startsWith("play:"));
  const pairs = legal.filter((t) => t.startsWith("pair:"));
  const senges = legal.filter((t) => t.startsWith("senge:"));
  const parks = legal.filter((t) => t.startsWith("parknuff:"));
  [...plays, ...pairs].forEach((t) => covered.add(t));
  const usable = new Set([...plays, ...pairs].flatMap((t) => t.split(":")[1].split(",")));
  const info = (t) => {
    if (usable.has(t)) return { legal: true };
    if (v.over) return { legal: false, reason: "The game is over." };
    if (o.phase === "window") return { legal: false, reason: parks.length ? "Only the fourth card of the rank on top may be sneaked in: use the PARKNUFF button." : `You do not hold the fourth ${o.window ? o.window.rank : ""}.` };
    if (!myTurn) return { legal: false, reason: `Not your turn: waiting for ${v.actors.map((s) => nm[s]).join(", ")}.` };
    if (o.phase !== "play") return { legal: false, reason: "Cards are played once the deal has begun." };
    return { legal: false, reason: ruleFor(o.top) };
  };

  let prompt = "";
  if (o.phase === "window") {
    const rank = o.window ? o.window.rank : "";
    if (parks.length || legal.includes("decline")) {
      parks.forEach((t) => covered.add(t)); covered.add("decline");
      const big = parks.map((t) => [t, `PARKNUFF! ${cardPic(t.split(":")[1], "cs-small-card")}`, "primary cs-parknuff"]);
      prompt = `<h2>Fare for HELKNUFF!</h2><p>Three ${ctx.esc(rank)}s lie on top.${parks.length ? " You hold the fourth: sneak it in now (claims are sealed; the first in playing order wins)." : " You do not hold the fourth: say pass."}</p><div class="row">${actButtons(big)}${actButtons([["decline", parks.length ? "No, let it go" : "Pass", "cs-big"]])}</div>`;
    } else {
      prompt = `<h2>Fare for HELKNUFF!</h2><p>Three ${ctx.esc(rank)}s lie on top; the others may sneak in the fourth.${o.my_claim !== undefined ? " Your answer is in." : ""}</p>`;
    }
  } else if (o.phase === "ask") {
    const asks = legal.filter((t) => t.startsWith("ask:"));
    asks.forEach((t) => covered.add(t));
    prompt = asks.length ? `<h2>Who begins?</h2><p>Ask another player whether they want to begin; if not, you begin.</p><div class="row">${actButtons(asks.map((t) => [t, `Ask ${ctx.esc(nm[+t.split(":")[1]])}`, "cs-big"]))}</div>`
      : `<h2>Who begins?</h2><p>${ctx.esc(nm[o.starter])} asks who wants to begin.</p>`;
  } else if (o.phase === "answer") {
    ["yes", "no"].forEach((t) => covered.add(t));
    prompt = legal.includes("yes") ? `<h2>${ctx.esc(nm[o.starter])} asks: do you want to begin?</h2><div class="row">${actButtons([["yes", "Yes, I begin", "primary cs-big"], ["no", "No", "cs-big"]])}</div>`
      : `<h2>Who begins?</h2><p>${ctx.esc(nm[o.asked])} is asked whether they want to begin.</p>`;
  } else if (o.phase === "seats") {
    const acts = [["stay", "Stay for the next deal", "primary cs-big"], ["leave", "Sit out (leave the table for now)", "cs-big"], ["join", "Join the game", "primary cs-big"], ["sit-out", "Sit out", "cs-big"]].filter(([t]) => legal.includes(t));
    acts.forEach(([t]) => covered.add(t));
    prompt = acts.length ? `<h2>Between deals</h2><div class="row">${actButtons(acts)}</div>` : `<h2>Between deals</h2><p>${ctx.esc(nm[o.seats_next] || "")} decides whether to stay.</p>`;
  } else if (o.phase === "play" && myTurn) {
    const buttons = [];
    if (selCards.length === 1 && plays.includes(`play:${selCards[0]}`)) buttons.push([`play:${selCards[0]}`, `Play ${cardPic(selCards[0], "cs-small-card")}`, "primary cs-big cs-play"]);
    if (selCards.length === 2) pairs.filter((t) => sameCards(t.slice(5).split(","), selCards)).forEach((t) => buttons.push([t, `Play the pair ${t.slice(5).split(",").map((c) => cardPic(c, "cs-small-card")).join("")}`, "primary cs-big"]));
    if (legal.includes("draw")) { covered.add("draw"); buttons.push(["draw", `Draw a card (${o.stock} left, ${o.draws_this_turn} of ${o.max_draws} this turn)`, "cs-big"]); }
    if (legal.includes("pass")) { covered.add("pass"); buttons.push(["pass", "Pass", "cs-big"]); }
    senges.forEach((t) => { covered.add(t); const [s, d] = t.split(":")[1].split(","); buttons.push([t, `Sengeknuff ${suitBadge(s)} Q K A: hands move ${d}`, "cs-big cs-warn"]); });
    const none = !plays.length && !pairs.length;
    const how = none ? (legal.includes("draw") ? "None of your cards goes on it: draw." : "None of your cards goes on it: pass.")
      : "Tap a card, then Play (or tap it twice); two J, Q, K or A of one rank make a pair (you go again).";
    const hint = `${o.top ? `On top: ${cardPic(o.top, "cs-small-card")}.` : "The pile is empty: play anything."} ${how}`;
    prompt = `<h2>Your turn</h2><p>${hint}</p><div class="row">${actButtons(buttons)}</div>`;
  }

  // Sitting out is a move of the game (the hand waits face down; "Join the game" brings the
  // seat back), not the room's "Leave the seat": named apart so the two are not confused.
  const leave = legal.includes("leave") && o.phase !== "seats"
    ? `<p>${covered.add("leave") && ""}<button type="button" class="cs-btn cs-small" data-act="leave" data-confirm="Sit out? Your hand waits face down at your chair and the game goes on without you; you can join again later (you keep your seat).">Sit out (leave the table for now)</button></p>` : "";
  const noDraw = o.no_draw_phase && !v.over ? '<li class="cs-big-news">No-draw phase: nobody draws any more. Sengeknuff (Q K A of one suit) is allowed.</li>' : "";
  const lines = news(v, ["hel-knuff", "sengeknuff", "parknuff", "fare-for-helknuff", "knuff", "personlig-knuff", "out", "letters", "window-closed"], 3)
    .map((e) => `<li${["hel-knuff", "sengeknuff", "parknuff"].includes(e.kind) ? ' class="cs-big-news"' : ""}>${ctx.esc(e.kind === "hel-knuff" ? `HEL-KNUFF! ${e.text}` : e.kind === "sengeknuff" ? `SENGEKNUFF! ${e.text}` : e.text)}</li>`).join("");

  const under = (o.pile || []).slice(-6, -1).map((c) => cardPic(c, "cs-small-card")).join("");
  const runLine = o.top && o.run >= 2 ? `<span><b>${o.run}</b> × ${ctx.esc(parseCard(o.top).rank)} on top</span>` : "";
  const board = `<section class="cs-board" aria-label="table"><p class="cs-facts"><span>Deal <b>${o.round}</b>${o.end === "rounds" || o.end === "either" ? ` of ${o.rounds}` : ""}</span><span>To draw ${backPic("cs-small-card")} <b>${o.stock}</b></span><span>Out of the deal: <b>${(o.dead || []).length}</b></span>${runLine}</p>`
    + `<h3>The pile</h3><div class="cs-row cs-pile">${under}${o.top ? cardPic(o.top, "cs-top-card") : '<span class="cs-slot"></span>'}</div></section>`;
  const facts = (s) => `${letters(o.letters[s] || "")} · ${o.hand_counts[s]} cards · min ${o.hand_minimum[s]}${o.knuffs[s] ? ` · KNUFF ×${o.knuffs[s]}` : ""}${o.status[s] !== "active" ? ` · ${o.status[s] === "new" ? "empty chair" : "away"}` : ""}`;
  const handBox = mine ? handHTML(hand, { info, selected: sel }) : "";
  const sheet = `<details class="cs-sheet"${v.seat === null ? " open" : ""}><summary>How KNUFF goes</summary><p>On the top card you may play a J, Q, K or A, any card of its rank, or a card of its suit of the same or lower rank. A picture card or ace on its own rank knuffs (the next player is skipped); a pair of them lets you go again. Draw up to ${o.max_draws} a turn, then pass. The fourth of a rank in a row is hel-knuff: the four leave and the no-draw phase begins. Going out wins the deal; the others get a letter, and K-N-U-F-F makes you KNUFF.</p></details>`;

  root.innerHTML = `<div class="cs cs-knuff${fourColour() ? " cs-four" : ""}" data-legal="${ctx.esc(JSON.stringify(legal))}">`
    + topBar("knuff", "KNUFF", v, ctx) + board + seatStrip(v, ctx, facts)
    + (noDraw || lines ? `<ul class="cs-news">${noDraw}${lines}</ul>` : "")
    + (prompt ? `<div class="cs-prompt${o.phase === "window" ? " cs-window" : ""}">${prompt}</div>` : "")
    + `<p class="cs-turnline">${turnLine(v, ctx)}</p>`
    + handBox + `<p class="cs-reason" role="status">${ctx.esc(said)}</p>` + leave
    + resultBox(v, ctx) + otherMoves(legal, covered, ctx.esc) + sheet + "</div>";
  wire(root, v, ctx, () => draw(...last));
  const redraw = () => draw(...last);
  root.querySelectorAll(".cs-hand .cs-card").forEach((b) => {
    b.onclick = () => {
      const t = b.dataset.card, i = info(t);
      if (!i.legal) { said = i.reason; redraw(); return; }
      said = "";
      if (sel.has(b.dataset.key)) {
        // A second tap on the one selected card plays it.
        if (sel.size === 1 && plays.includes(`play:${t}`) && !ctx.busy) { sel = new Set(); root.classList.add("cs-busy"); ctx.act(`play:${t}`); return; }
        sel.delete(b.dataset.key);
      } else {
        // A second card joins only to make a pair of pictures of one rank.
        const pic = PICTURES.includes(parseCard(t).rank);
        const same = selCards.length === 1 && parseCard(selCards[0]).rank === parseCard(t).rank && pic;
        if (!same) sel = new Set();
        sel.add(b.dataset.key);
      }
      redraw();
    };
  });
  root.querySelectorAll("[data-act]").forEach((b) => b.addEventListener("click", () => { sel = new Set(); said = ""; }));
}


