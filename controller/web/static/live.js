// Live connection to the table service: snapshots pushed over /ws, with
// reconnection, and a clock offset to the server estimated from pings (the
// fastest round trip wins, NTP style) so paint times are on the server clock.
// An ES module: pages import what they use, so no script shares globals.
export const Live = (() => {
  let ws = null, handlers = [], best = null, retry = 500;
  function connect() {
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onopen = () => { retry = 500; for (let i = 0; i < 5; i++) setTimeout(ping, i * 120); };
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "state") handlers.forEach((h) => h(msg.state));
      else if (msg.type === "pong") {
        const now = performance.now(), rtt = now - msg.c;
        const offset = msg.s / 1e6 - (msg.c + now) / 2; // server ms minus client ms
        if (best === null || rtt < best.rtt) best = { rtt, offset };
      }
    };
    ws.onclose = () => { setTimeout(connect, retry); retry = Math.min(retry * 2, 5000); };
  }
  function ping() { if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "ping", c: performance.now() })); }
  setInterval(ping, 5000);
  function send(obj) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj)); }
  function toServerNs(clientMs) { return best ? Math.round((clientMs + best.offset) * 1e6) : null; }
  function uncertaintyNs() { return best ? Math.round((best.rtt / 2 + 8.4) * 1e6) : null; }
  connect();
  return { on: (h) => handlers.push(h), send, toServerNs, uncertaintyNs };
})();

// Who this browser is to the table: {table, staff}. Staff log in once per device with
// the table PIN; the session is an HttpOnly cookie, so no script ever holds the PIN.
let viewer = null;
export function session(fresh) {
  if (!viewer || fresh) viewer = fetch("/api/session").then((r) => r.json()).then((v) => { showStaff(v); return v; });
  return viewer;
}
function showStaff(v) {
  const $ = (id) => document.getElementById(id);
  if (!$("staff")) return;
  $("staff-in").hidden = $("logout").hidden = !v.staff;
  $("pin").hidden = $("login").hidden = v.staff;
  if (v.staff) $("login-msg").textContent = "";
}
function wireStaff() {
  const $ = (id) => document.getElementById(id);
  if (!$("staff")) return;
  $("staff").onsubmit = async (e) => {
    e.preventDefault();
    const r = await fetch("/api/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin: $("pin").value }) });
    const data = await r.json().catch(() => ({}));
    $("pin").value = "";
    if (!r.ok) { $("login-msg").textContent = data.error || "log in failed"; return; }
    viewer = Promise.resolve(data); showStaff(data);
  };
  $("logout").onclick = async () => { await fetch("/api/session", { method: "DELETE" }); session(true); };
  session();
}
wireStaff();
// Older pages kept the PIN in localStorage; forget it on every device that still has it.
localStorage.removeItem("knapp-pin");

export async function api(path, body, needsStaff) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
  const data = await r.json().catch(() => ({}));
  if (needsStaff && (r.status === 403 || r.status === 429)) {
    // Not (or no longer) logged in: offer the login in the navigation bar.
    session(true);
    const box = document.getElementById("pin");
    if (box) box.focus();
  }
  if (!r.ok) throw new Error(data.error || (Array.isArray(data.detail) ? data.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ") : data.detail) || r.statusText);
  return data;
}
export function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c])); }
