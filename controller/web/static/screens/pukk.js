// Púkk's screen: the board of compartments with chips as pictures, each player's chips,
// and one prompt per phase (dressing, honours with Pamfíll and the bísefa, the Púkk
// betting on sets, the play-out with its stops and payments).
import {
  actButtons, cardPic, ensureCss, fourColour, handHTML, keepFitted, keyed, news, otherMoves,
  rankValue, resultBox, seatStrip, sortHand, suitBadge, topBar, turnLine, wire, backs, guarded,
} from "/static/cards.js";

const POOL_NAME = { as: ["Ás", "A"], kongur: ["Kóngur", "K"], drottning: ["Drottning", "Q"], gosi: ["Gosi", "J"], tia: ["Tía", "10"], nia: ["Nía", "9"], pamfill: ["Pamfíll", "J♣"] };
const SUIT_OF_NAME = { hearts: "H", spades: "S", diamonds: "D", clubs: "C" };
const SET_NAME = { 2: "a pair of", 3: "three", 4: "four" };
const RANK_WORD = { 14: "aces", 13: "kings", 12: "queens", 11: "jacks", 10: "tens", 9: "nines", 8: "eights", 7: "sevens", 6: "sixes", 5: "fives" };
let sel = null, said = "", last = null;

// A chip as a picture: a disc with a rim; `n` of them (at most `max`), then the number.
function chips(n, max = 10) {
  const one = '<svg class="cs-chip" viewBox="0 0 20 20" aria-hidden="true"><circle cx="10" cy="10" r="9" fill="#e0b030" stroke="#7a5a00" stroke-width="1.5"/><circle cx="10" cy="10" r="5" fill="none" stroke="#fff3c4" stroke-width="1.5" stroke-dasharray="2 2"/></svg>';
  return `<span class="cs-chips" role="img" aria-label="${n} chips">${one.repeat(Math.min(n, max))}</span> <span class="cs-chipnum">${n}</span>`;
}

// The best set in a hand for the Púkk: most cards of one rank, Pamfíll (J♣) wild.
function bestSet(hand) {
  const counts = {};
  let wild = 0;
  for (const t of hand) {
    if (t === "JC") { wild += 1; continue; }
    const r = rankValue(t); counts[r] = (counts[r] || 0) + 1;
  }
  const order = (r) => (r === 6 ? 20 : r === 5 ? 1 : r); // the sixes rank highest in the Púkk
  let best = null;
  for (const [r, n] of Object.entries(counts)) {
    const size = n + wild;
    if (size >= 2 && (!best || size > best.size || (size === best.size && order(+r) > order(best.rank)))) best = { size, rank: +r };
  }
  if (!best) return wild && hand.length ? "Pamfíll alone: no set" : "no set (you need a pair or better to bet)";
  return `${SET_NAME[best.size] || best.size} ${RANK_WORD[best.rank] || best.rank}${wild ? " (with Pamfíll)" : ""}`;
}

const POOL_WORD = (k) => (POOL_NAME[k] || [k])[0];
// The deal's events in words of the game (the room's log says them generically).
function say(e, nm) {
  const d = e.data || {}, who = (s) => nm[s] || "someone";
  switch (e.kind) {
    case "dressed": return `Dressing: everyone pays ${d.per_player} chip${d.per_player === 1 ? "" : "s"} into the compartments and the Púkk.`;
    case "honour": return d.pool ? `${who(d.seat)} shows ${d.card} and takes ${POOL_WORD(d.pool)}: ${d.chips} chips.` : `${who(d.seat)} shows ${d.card}: ${who(d.owner)}'s honour, ${d.chips} chip${d.chips === 1 ? "" : "s"}.`;
    case "unclaimed": return `Nobody holds ${POOL_WORD(d.pool)}: its ${d.carried} chips stay for the next deal.`;
    case "swapped": return `Bísefa: ${who(d.seat)} swaps ${d.gave} for the turned ${d.took}.`;
    case "pukk_won": return `${(d.seats || []).map(who).join(" and ")} win${(d.seats || []).length === 1 ? "s" : ""} the Púkk: ${d.chips} chips${d.how ? ` (${d.how})` : ""}.`;
    case "pukk_unopened": return `Nobody bet: the Púkk (${d.carried}) stays for the next deal.`;
    case "stopped": return `Stop! Nobody can go on; ${who(d.leader)} leads again.`;
    case "went_out": return `${who(d.seat)} is out first (last card ${d.last}) and is paid for every card left.`;
    default: return e.text;
  }
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
  const trump = SUIT_OF_NAME[o.trump] || "";
  const mine = me !== null && Array.isArray(o.hand);
  const others = "CDHS".replace(trump, "");
  const hand = mine ? sortHand(o.hand, { suits: trump + others }) : [];
  const keys = keyed(hand);
  if (!keys.some((k) => k.key === sel)) sel = null;
  const selText = sel ? keys.find((k) => k.key === sel).text : null;
  const run = o.run; // [suit, lo, hi] or null

  const info = (t) => {
    if (legal.includes(`play:${t}`)) return { legal: true };
    if (o.phase === "over") return { legal: false, reason: "The game is over." };
    if (o.phase === "bisefa") return { legal: false, reason: "First the bísefa: the holder of the trump 7 may swap it for the turned card." };
    if (o.phase === "bet") return { legal: false, reason: "The Púkk is being bet; cards are played after it." };
    if (!v.actors.includes(me)) return { legal: false, reason: `Not your lead: the run goes on by itself (whoever holds the next card must play it). Waiting for ${v.actors.map((s) => nm[s]).join(", ")}.` };
    if (run) return { legal: false, reason: `Only the card just below or above the run (${run[1]}–${run[2]} of ${run[0]}) may be played.` };
    return { legal: false, reason: "This card cannot be played now." };
  };

  let prompt = "";
  const myTurn = me !== null && v.actors.includes(me);
  if (o.phase === "bisefa") {
    // Every seat is asked in turn, so the question itself does not say who holds the 7;
    // only the holder's own legal actions include the swap.
    if (legal.includes("swap")) {
      ["swap", "keep"].forEach((t) => covered.add(t));
      prompt = `<h2>Bísefa: you hold the trump 7</h2><p>Swap it for the turned card ${cardPic(o.turned, "cs-small-card")}? Then the honours are shown.</p><div class="row">${actButtons([["swap", `Swap for ${ctx.esc(o.turned)}`, "primary cs-big"], ["keep", "Keep the 7", "cs-big"]].filter(([t]) => legal.includes(t)))}</div>`;
    } else if (legal.includes("keep")) {
      covered.add("keep");
      prompt = `<h2>Bísefa: the trump 7</h2><p>Each player in turn is asked about the trump 7, so nobody learns who holds it. Whoever holds it may swap it for the turned card ${cardPic(o.turned, "cs-small-card")}; you do not hold it.</p><div class="row">${actButtons([["keep", "Go on", "cs-big"]])}</div>`;
    } else prompt = `<h2>Bísefa: the trump 7</h2><p>${ctx.esc(v.actors.map((s) => nm[s]).join(", "))} is asked about the trump 7; whoever holds it may swap it for the turned card.</p>`;
  } else if (o.phase === "bet") {
    const acts = [["bet", "Bet", "primary cs-big"], ["pass", "Pass", "cs-big"], ["match", "Match the bet", "primary cs-big"], ["fold", "Give up", "cs-big"]].filter(([t]) => legal.includes(t));
    acts.forEach(([t]) => covered.add(t));
    const pending = o.bet_pending ? "A bet stands: match it or give up." : "Bet on your best set, or pass.";
    prompt = myTurn ? `<h2>The Púkk: ${pending}</h2><p>Your best set: <b>${ctx.esc(bestSet(o.hand || []))}</b>. Pairs and better may bet (Pamfíll is wild); the best set still in takes the Púkk (${o.pukk} chips).</p><div class="row">${actButtons(acts)}</div>`
      : `<h2>The Púkk (${o.pukk} chips)</h2><p>${turnLine(v, ctx)} ${o.bets_made} bet${o.bets_made === 1 ? "" : "s"} so far.</p>`;
  } else if (o.phase === "play") {
    legal.filter((t) => t.startsWith("play:")).forEach((t) => covered.add(t));
    const play = selText && legal.includes(`play:${selText}`) ? actButtons([[`play:${selText}`, `Play ${cardPic(selText, "cs-small-card")}`, "primary cs-big cs-play"]]) : "";
    const choice = run && legal.length === 2;
    prompt = myTurn ? `<h2>${choice ? "Go on below or above the run" : "Your lead"}</h2><p>${choice ? "Tap one of the two cards that fit the run." : "Lead any card. Whoever holds the next higher card of its suit must play it; when the run stops, its last player leads."} The first one out is paid a chip per card left in each other hand.</p><div class="row">${play}</div>`
      : `<h2>The play-out</h2><p>${turnLine(v, ctx)}</p>`;
  }

  const phases = [["bisefa", "Dressing & honours"], ["bet", "The Púkk"], ["play", "Play-out"]].map(([k, l]) => `<li class="${k === o.phase ? "on" : ""}">${l}</li>`).join("");
  // The board: the Púkk and the side compartments.
  const pools = Object.entries(o.pools || {}).map(([k, n]) => `<div class="cs-pool" data-pool="${k}"><b>${(POOL_NAME[k] || [k])[0]} <span class="muted">${(POOL_NAME[k] || ["", ""])[1]}</span></b>${chips(n)}</div>`).join("");
  const trumpLine = o.turned ? `<span>Trump ${suitBadge(trump)} · turned ${cardPic(o.turned, "cs-small-card")}</span>` : "";
  const runLine = run ? `<span>Run: <b>${ctx.esc(run[1])}–${ctx.esc(run[2])}</b> ${suitBadge(run[0])}</span>` : "";
  const plays = (o.plays || []).slice(-12).map(([s, c]) => cardPic(c, "cs-small-card")).join("");
  const deals = o.deals ? `Deal <b>${o.deal}</b> of ${o.deals}` : `Deal <b>${o.deal}</b> (until someone is broke)`;
  const board = `<section class="cs-board" aria-label="table"><ol class="cs-phases" aria-label="phases of the deal">${phases}</ol><p class="cs-facts"><span>${deals}</span>${trumpLine}${runLine}</p>`
    + `<div class="cs-pools"><div class="cs-pool cs-pukk" data-pool="pukk"><b>Púkk</b>${chips(o.pukk, 20)}</div>${pools}</div>`
    + (plays ? `<h3>Played this deal</h3><div class="cs-row">${plays}</div>` : "")
    + "</section>";

  const shown = o.shown || [];
  const facts = (s) => `${chips(o.stacks[s], 3)} · ${backs(o.hand_sizes[s], 5)}${o.committed[s] ? ` · bet ${o.committed[s]}` : ""}${o.phase === "bet" && !o.in_pukk[s] ? " · out" : ""}${s === o.dealer ? " · dealer" : ""}${s === o.forehand ? " · forehand" : ""}`
    + (shown[s] && shown[s].length ? `<span class="cs-row">${shown[s].map((c) => cardPic(c, "cs-small-card")).join("")}</span>` : "");
  const ld = o.last_deal || {};
  const pay = ld.payments && Object.keys(ld.payments).length
    ? `<p>Deal ${ld.deal}: <b>${ctx.esc(nm[ld.winner])}</b> went out first; ${Object.entries(ld.payments).map(([s, n]) => `${ctx.esc(nm[+s])} paid ${n}`).join(", ")}.</p>` : "";
  const lines = news(v, ["dressed", "honour", "unclaimed", "swapped", "pukk_won", "pukk_unopened", "went_out", "stopped"], 4).map((e) => `<li>${ctx.esc(say(e, nm))}</li>`).join("");
  const reason = `<p class="cs-reason" role="status">${ctx.esc(said)}</p>`;
  const handBox = mine ? handHTML(hand, { info, selected: new Set(sel ? [sel] : []) }) : "";
  const sheet = `<details class="cs-sheet"${v.seat === null ? " open" : ""}><summary>How a deal goes</summary><p>1. Everybody puts a chip in each compartment and in the Púkk. 2. The turned card sets trump; the holder of the trump 7 (bísefa) may swap it; the holders of the trump honours take their compartments, J♣ (Pamfíll) takes Pamfíll. 3. The Púkk: bet on pairs or better. 4. The play-out: runs up a suit; the first one out is paid per card left.</p></details>`;

  root.innerHTML = `<div class="cs cs-pukk${fourColour() ? " cs-four" : ""}" data-legal="${ctx.esc(JSON.stringify(legal))}">`
    + topBar("pukk", "Púkk", v, ctx) + board + seatStrip(v, ctx, facts)
    + (lines ? `<ul class="cs-news">${lines}</ul>` : "")
    + (pay ? `<div class="cs-prompt">${pay}</div>` : "")
    + (prompt ? `<div class="cs-prompt">${prompt}</div>` : "")
    + `<p class="cs-turnline">${turnLine(v, ctx)}</p>`
    + handBox + reason + resultBox(v, ctx, "chips")
    + otherMoves(legal, covered, ctx.esc) + sheet + "</div>";
  wire(root, v, ctx, () => draw(...last));
  root.querySelectorAll(".cs-hand .cs-card").forEach((b) => {
    b.onclick = () => {
      const t = b.dataset.card, i = info(t);
      if (!i.legal) { sel = null; said = i.reason; draw(...last); return; }
      said = "";
      if (sel === b.dataset.key && !ctx.busy) { sel = null; root.classList.add("cs-busy"); ctx.act(`play:${t}`); return; }
      sel = b.dataset.key; draw(...last);
    };
  });
  root.querySelectorAll("[data-act]").forEach((b) => b.addEventListener("click", () => { sel = null; said = ""; }));
}

