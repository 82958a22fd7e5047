// Refresh the page's one fragment every few seconds: the server renders it, we swap it in.
const REFRESH_MS = 2000;
const live = document.getElementById("live");

async function refresh() {
  try {
    const r = await fetch(live.dataset.fragment, { cache: "no-store" });
    if (r.status === 401) {
      location.assign("/login");  // the staff session ran out
      return;
    }
    if (r.ok) {
      live.innerHTML = await r.text();
      live.dataset.refreshed = String(Date.now());
      live.classList.remove("stale");
    } else {
      live.classList.add("stale");
    }
  } catch {
    live.classList.add("stale");  // the café service itself is unreachable: keep the last view
  }
}

setInterval(refresh, REFRESH_MS);
