// The generic view: any game's observation laid out readably, its legal actions as
// buttons grouped by kind. The fallback every game can be played with; the designed
// screens of each game replace it.
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// Keys shown first (a seat's own cards), then the rest in the game's order.
const FIRST = ["hand", "my_laid_away", "my_claim", "known", "legal"];
const SKIP = new Set(["legal", "game", "seat"]);
const BIG_GROUP = 40; // more actions of one kind than this become a list to pick from

function label(key) { return key.replace(/[_-]+/g, " "); }

function isScalar(v) { return v === null || ["string", "number", "boolean"].includes(typeof v); }

function scalar(v) {
  if (v === null) return '<span class="muted">–</span>';
  if (typeof v === "boolean") return v ? "yes" : "no";
  return esc(v);
}

function value(v, key, depth) {
  if (isScalar(v)) return scalar(v);
  if (Array.isArray(v)) {
    if (!v.length) return '<span class="muted">none</span>';
    if (v.every(isScalar)) {
      // A board given as rows of text reads best as a grid.
      if (key === "board" && v.every((r) => typeof r === "string")) return `<pre class="grid">${esc(v.join("\n"))}</pre>`;
      return `<span class="chips">${v.map((x) => `<span class="chip">${scalar(x)}</span>`).join("")}</span>`;
    }
    if (depth > 2) return `<code>${esc(JSON.stringify(v))}</code>`;
    return `<ol class="nested">${v.map((x) => `<li>${value(x, key, depth + 1)}</li>`).join("")}</ol>`;
  }
  if (depth > 2) return `<code>${esc(JSON.stringify(v))}</code>`;
  return dl(v, depth + 1);
}

function ordered(obj, depth) {
  const keys = Object.keys(obj).filter((k) => depth > 0 || !SKIP.has(k));
  if (depth) return keys;
  return [...FIRST.filter((k) => keys.includes(k)), ...keys.filter((k) => !FIRST.includes(k))];
}

function dl(obj, depth) {
  const keys = ordered(obj, depth);
  return `<dl class="obs">${keys.map((k) => `<div class="kv${FIRST.includes(k) && depth === 0 ? " mine" : ""}" data-key="${esc(k)}"><dt>${esc(label(k))}</dt><dd>${value(obj[k], k, depth)}</dd></div>`).join("")}</dl>`;
}

export function renderObservation(obs) { return dl(obs || {}, 0); }

export function groupActions(legal) {
  const groups = new Map();
  for (const text of legal) {
    const kind = text.split(":")[0];
    if (!groups.has(kind)) groups.set(kind, []);
    groups.get(kind).push(text);
  }
  return groups;
}

export function renderLegal(legal) {
  if (!legal.length) return "";
  const out = [];
  for (const [kind, actions] of groupActions(legal)) {
    const title = `<h3>${esc(label(kind))}</h3>`;
    const args = (t) => (t.includes(":") ? t.slice(t.indexOf(":") + 1) : label(kind));
    if (actions.length > BIG_GROUP) {
      out.push(`<div class="group">${title}<select class="pick" aria-label="${esc(label(kind))}">${actions.map((a) => `<option value="${esc(a)}">${esc(args(a))}</option>`).join("")}</select> <button class="primary act-pick" type="button">${esc(label(kind))}</button></div>`);
    } else {
      out.push(`<div class="group">${title}${actions.map((a) => `<button class="act" type="button" data-action="${esc(a)}">${esc(args(a))}</button>`).join("")}</div>`);
    }
  }
  return out.join("");
}
