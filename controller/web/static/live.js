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

export function pin() { return localStorage.getItem("knapp-pin") || ""; }
export async function api(path, body, needPin) {
  const headers = { "Content-Type": "application/json" };
  if (needPin) {
    let p = pin();
    if (!p) { p = prompt("Table PIN") || ""; localStorage.setItem("knapp-pin", p); }
    headers["X-Table-Pin"] = p;
  }
  const r = await fetch(path, { method: "POST", headers, body: JSON.stringify(body || {}) });
  const data = await r.json().catch(() => ({}));
  if (r.status === 403) localStorage.removeItem("knapp-pin");
  if (!r.ok) throw new Error(data.error || (data.detail && JSON.stringify(data.detail)) || r.statusText);
  return data;
}
export function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c])); }
