// resellerd dev console: reads /_dev/ once a second and draws what it answers. No library, no
// network beyond this listener; every text from the service goes in through textContent.
"use strict";

(() => {
  const DEV = "/_dev/";
  const POLL_MS = 1000;
  const HIDDEN_POLL_MS = 5000;
  // READ_TIMEOUT_MS bounds each read (GET): a read that never answers (a connection the browser
  // or a proxy holds on to, a busy host) must not hold refresh() and so stop the page's polling
  // for good; it fails ("last read failed") and the next poll reads again. Actions are not
  // bounded here: a reset or a restore under --machines sandbox takes as long as it takes.
  const READ_TIMEOUT_MS = 15000;
  const COLORS = ["#2457c5", "#c0262d", "#1a7f4b", "#b54708", "#7a3db8", "#0f7b8a", "#a61e70", "#5d6b00"];
  const SVG_NS = "http://www.w3.org/2000/svg";

  const $ = (sel, root = document) => root.querySelector(sel);
  const state = {
    seq: {},            // the latest request sent per section
    drawn: {},          // the request whose answer each section shows
    shown: {},          // the JSON each table last drew, so an unchanged answer redraws nothing
    seen: {},           // ids each table has shown, so new rows can flash
    expanded: new Set(), // journal entries whose bodies are open
    faults: [],         // the fault rules as GET /_dev/faults answered them
  };

  // el builds an element; strings and numbers become text, never HTML.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "onclick") node.addEventListener("click", v);
      else if (k.startsWith("data-")) node.setAttribute(k, String(v));
      else node[k] = v;
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // api calls a /_dev/ route and returns its status and envelope. A body goes as JSON with
  // Content-Type: application/json, as /_dev/ requires.
  async function api(method, path, body) {
    const init = { method, headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" };
    if (method === "GET") init.signal = AbortSignal.timeout(READ_TIMEOUT_MS);
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(DEV + path, init);
    let env = null;
    try { env = await res.json(); } catch (_) { env = null; }
    return {
      status: res.status,
      ok: res.ok && !!env && env.success === true,
      data: env ? env.data : null,
      error: env && env.error ? env.error : { message: "HTTP " + res.status },
    };
  }

  // listOf finds the list in data, whether the route answers an array or an object holding one.
  function listOf(data, ...keys) {
    if (Array.isArray(data)) return data;
    for (const k of keys) if (data && Array.isArray(data[k])) return data[k];
    return [];
  }

  // Formatting.
  function usd(n) {
    if (typeof n !== "number" || !isFinite(n)) return "—";
    const [whole, frac = ""] = Math.abs(n).toFixed(6).replace(/0+$/, "").split(".");
    return (n < 0 ? "-$" : "$") + whole + "." + frac.padEnd(2, "0");
  }
  const when = (iso) => (iso ? String(iso).replace("T", " ").replace(/Z$/, " UTC") : "—");
  function age(seconds) {
    const s = Math.max(0, Math.floor(seconds || 0));
    if (s < 60) return s + " s";
    if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
    return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
  }
  function bytes(n) {
    if (typeof n !== "number") return "—";
    if (n < 1024) return n + " B";
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KB";
    return (n / 1024 / 1024).toFixed(1) + " MB";
  }
  const dash = (v) => (v === null || v === undefined || v === "" ? "—" : v);
  const status = (word) => el("span", { class: "status " + String(word).replace(/[^a-z0-9_]/gi, "") }, word);
  function httpStatus(code) {
    if (code === null || code === undefined) return el("span", { class: "status" }, "none");
    return el("span", { class: "status s" + String(code)[0] + "xx" }, code);
  }

  // Messages.
  let bannerTimer = 0;
  function banner(text) {
    const b = $("#banner");
    b.textContent = text;
    b.hidden = false;
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(() => { b.hidden = true; }, 8000);
  }
  function live(ok, text) {
    $("#live-dot").className = "dot " + (ok ? "ok" : "bad");
    $("#live-text").textContent = text;
  }

  // available marks a section as served or not by this resellerd (a route that answers 404 is
  // not merged yet, or not mounted). The overview has no section of its own: it fills many.
  function available(id, yes) {
    const section = document.getElementById(id);
    if (!section) {
      if (!yes) banner("Not available: this resellerd does not serve /_dev/" + id + ".");
      return;
    }
    section.classList.toggle("off", !yes);
    const note = $(".unavailable", section);
    if (note) note.hidden = yes;
  }

  // rows redraws the body of a section's table when its rows changed; rows whose key the table
  // had not shown before flash.
  function rows(id, list, key, draw, empty, columns) {
    const json = JSON.stringify(list);
    if (state.shown[id] === json) return;
    const first = state.shown[id] === undefined;
    state.shown[id] = json;
    const seen = state.seen[id] || (state.seen[id] = new Set());
    const body = $("#" + id + " tbody");
    const out = [];
    for (const item of list) {
      for (const tr of [].concat(draw(item))) {
        if (!first && tr.dataset.id && !seen.has(tr.dataset.id)) tr.classList.add("new");
        out.push(tr);
      }
      seen.add(String(key(item)));
    }
    if (out.length === 0) out.push(el("tr", {}, el("td", { class: "empty", colSpan: columns }, empty)));
    body.replaceChildren(...out);
    const count = $("#" + id + " .count");
    if (count) count.textContent = list.length ? "(" + list.length + ")" : "";
  }

  // load reads path for a section and draws the answer, unless a later read already did.
  async function load(section, path, draw) {
    const seq = (state.seq[section] = (state.seq[section] || 0) + 1);
    const r = await api("GET", path);
    if (seq < (state.drawn[section] || 0)) return;
    state.drawn[section] = seq;
    if (r.status === 404) {
      available(section, false);
      return;
    }
    available(section, true);
    if (!r.ok) throw new Error(section + ": " + r.error.message);
    draw(r.data);
  }

  // The overview: clock, accounts, chart, servers, orders, snapshots, deliveries.
  function drawOverview(o) {
    const now = $("#clock-now");
    now.textContent = when(o.now);
    now.dateTime = o.now;
    const accounts = o.accounts || [];
    rows("accounts", accounts, (a) => a.id, (a) => el("tr", { "data-id": a.id },
      el("td", {}, a.id),
      el("td", { class: "num balance" }, usd(a.balance)),
      el("td", { class: "num available" }, usd(a.available)),
      el("td", { class: "num debt" }, usd(a.debt)),
      el("td", { class: "num servers" }, a.active_servers + " / " + a.server_limit),
      el("td", { class: "num" }, a.pending_orders + " / " + a.order_limit)),
    "No account.", 6);
    drawChart(accounts, o.now);
    rows("servers", o.servers || [], (s) => s.id, (s) => el("tr", { "data-id": s.id },
      el("td", {}, s.id),
      el("td", {}, s.account_id),
      el("td", { class: "name" }, s.name),
      el("td", { class: "status" }, status(s.status)),
      el("td", {}, s.plan || "plan " + s.plan_id),
      el("td", { class: "num hourly" }, usd(s.hourly_price)),
      el("td", { class: "ipv4" }, dash(s.ipv4)),
      el("td", { class: "locked" }, s.locked ? status("locked") : "no", s.locked && s.lock_reason ? " (" + s.lock_reason + ")" : "")),
    "No active server.", 8);
    rows("orders", o.pending_orders || [], (p) => p.id, (p) => el("tr", { "data-id": p.id },
      el("td", {}, p.id),
      el("td", {}, p.account_id),
      el("td", {}, dash(p.hostname)),
      el("td", {}, p.plan || "plan " + p.plan_id),
      el("td", { class: "num" }, usd(p.price)),
      el("td", { class: "num age" }, age(p.age_seconds))),
    "No order is pending.", 6);
    rows("snapshots", o.snapshots || [], (s) => s.id, (s) => el("tr", { "data-id": s.id },
      el("td", {}, s.id),
      el("td", {}, s.account_id),
      el("td", {}, s.instance_id),
      el("td", {}, s.name),
      el("td", {}, status(s.status)),
      el("td", { class: "num" }, s.size_gb ? s.size_gb + " GB" : "—"),
      el("td", { class: "num" }, usd(s.hourly_price)),
      el("td", {}, s.locked ? status("locked") : "no")),
    "No snapshot.", 8);
    rows("deliveries", o.deliveries || [], (d) => d.id, (d) => el("tr", { "data-id": d.id },
      el("td", {}, d.id),
      el("td", {}, d.account_id),
      el("td", {}, d.event),
      el("td", {}, status(d.status)),
      el("td", { class: "num" }, d.attempts),
      el("td", { class: "num" }, d.last_status === null ? "—" : httpStatus(d.last_status)),
      el("td", { class: "wrap" }, dash(d.last_error)),
      el("td", {}, when(d.created_at)),
      el("td", {}, d.finished_at ? when(d.finished_at) : "due " + when(d.next_at))),
    "No webhook delivery.", 9);
  }

  // drawChart draws each account's balance as steps over the service clock, up to now.
  function drawChart(accounts, nowISO) {
    const W = 640, H = 240, L = 78, R = 12, T = 12, B = 26;
    const now = Date.parse(nowISO);
    const series = accounts.map((a, i) => {
      const pts = (a.balance_history || []).map((p) => [Date.parse(p.time), p.balance]);
      pts.push([Math.max(now, pts.length ? pts[pts.length - 1][0] : now), a.balance]);
      return { id: a.id, color: COLORS[i % COLORS.length], pts };
    });
    const key = JSON.stringify(series) + nowISO;
    if (state.shown.chart === key) return;
    state.shown.chart = key;
    const box = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "Balance of each account over the service clock" });
    const all = series.flatMap((s) => s.pts);
    const t0 = all.length ? Math.min(...all.map((p) => p[0])) : now - 3600 * 1000;
    const t1 = Math.max(t0 + 60 * 1000, now, ...all.map((p) => p[0]));
    // The balances' own range, padded, so a drop of cents shows on a balance of thousands.
    let lo = Math.min(...all.map((p) => p[1]));
    let hi = Math.max(...all.map((p) => p[1]));
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (hi - lo < 1e-6) { lo -= Math.max(1, Math.abs(lo) * 0.01); hi += Math.max(1, Math.abs(hi) * 0.01); }
    const pad = (hi - lo) * 0.08;
    lo = lo >= 0 ? Math.max(0, lo - pad) : lo - pad;
    hi += pad;
    const decimals = Math.min(6, Math.max(2, Math.ceil(-Math.log10(hi - lo)) + 2));
    const x = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
    const y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
    box.append(svg("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }));
    box.append(svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }));
    for (const v of [lo, (lo + hi) / 2, hi]) {
      box.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, usd(Number(v.toFixed(decimals)))));
    }
    box.append(svg("text", { x: L, y: H - 6 }, when(new Date(t0).toISOString().replace(/\.\d+Z$/, "Z"))));
    box.append(svg("text", { x: W - R, y: H - 6, "text-anchor": "end" }, when(new Date(t1).toISOString().replace(/\.\d+Z$/, "Z"))));
    if (accounts.length === 0) {
      box.append(svg("text", { class: "empty", x: W / 2, y: H / 2, "text-anchor": "middle" }, "No account yet."));
    }
    for (const s of series) {
      let d = `M${x(s.pts[0][0]).toFixed(1)},${y(s.pts[0][1]).toFixed(1)}`;
      for (const [t, v] of s.pts.slice(1)) d += `H${x(t).toFixed(1)}V${y(v).toFixed(1)}`;
      box.append(svg("path", { class: "line", d, stroke: s.color, "data-account": s.id }));
    }
    $("#chart").replaceChildren(box);
    $("#chart-legend").replaceChildren(...series.map((s) => {
      const swatch = el("span", { class: "swatch" });
      swatch.style.background = s.color;
      return el("li", {}, swatch, "Account " + s.id + ": " + usd(s.pts[s.pts.length - 1][1]));
    }));
  }

  // The journal, with the filters of its form.
  function journalQuery() {
    const q = new URLSearchParams();
    for (const [k, v] of new FormData($("#journal-filters"))) if (String(v).trim() !== "") q.set(k, String(v).trim());
    const s = q.toString();
    return "requests" + (s ? "?" + s : "");
  }
  const pretty = (v) => (v === null || v === undefined ? "null" : JSON.stringify(v, null, 2));
  function drawJournal(data) {
    const entries = listOf(data, "entries", "requests");
    const open = [...state.expanded].join(",");
    rows("journal", entries.map((e) => Object.assign({ _open: open }, e)), (e) => e.id, (e) => {
      const tr = el("tr", { class: "entry", "data-id": e.id, onclick: () => toggle(e.id) },
        el("td", {}, e.id),
        el("td", {}, when(e.time)),
        el("td", {}, e.direction),
        el("td", {}, e.method),
        el("td", { class: "wrap" }, e.route || e.path),
        el("td", { class: "num" }, httpStatus(e.status)),
        el("td", { class: "num" }, e.duration_ms === undefined ? "—" : e.duration_ms),
        el("td", {}, dash(e.account_id)),
        el("td", {}, e.fault ? el("span", { class: "status failed" }, "fault") : ""));
      if (!state.expanded.has(String(e.id))) return tr;
      const detail = el("tr", { class: "bodies" }, el("td", { colSpan: 9 },
        el("div", {}, el("strong", {}, "Path "), el("code", {}, e.path || "—"),
          e.idempotency_key ? [" · ", el("strong", {}, "Idempotency-Key "), el("code", {}, e.idempotency_key)] : ""),
        el("div", {}, el("strong", {}, "Request body")), el("pre", {}, pretty(e.request_body)),
        el("div", {}, el("strong", {}, "Response body")), el("pre", {}, pretty(e.response_body))));
      return [tr, detail];
    }, "No request recorded.", 9);
  }
  function toggle(id) {
    const k = String(id);
    if (state.expanded.has(k)) state.expanded.delete(k); else state.expanded.add(k);
    refreshSoon();
  }

  // Fault rules.
  function drawFaults(data) {
    const rules = (state.faults = listOf(data, "rules"));
    rows("faults", rules, (f) => JSON.stringify(f), (f) => el("tr", { "data-route": f.route },
      el("td", { class: "wrap" }, f.route),
      el("td", { class: "num" }, dash(f.status)),
      el("td", { class: "num" }, f.latency_ms ? f.latency_ms + " ms" : "—"),
      el("td", {}, f.reset ? "yes" : "no"),
      el("td", { class: "num" }, dash(f.rate)),
      el("td", { class: "num" }, dash(f.count)),
      el("td", { class: "num" }, dash(f.remaining)),
      el("td", {}, dash(f.account_id)),
      el("td", {}, el("button", { type: "button", class: "small danger", onclick: () => removeFault(rules, f) }, "Remove"))),
    "No fault rule: every request is answered normally.", 9);
  }
  // ruleOf is a rule as PUT /_dev/faults takes it: the fields it was given, a counted rule
  // keeping what it has left.
  function ruleOf(f) {
    const r = { route: f.route };
    for (const k of ["status", "latency_ms", "reset", "rate", "account_id"]) if (f[k] !== undefined && f[k] !== null) r[k] = f[k];
    if (typeof f.remaining === "number") r.count = f.remaining;
    else if (f.count !== undefined && f.count !== null) r.count = f.count;
    return r;
  }
  function ruleFromForm() {
    const form = new FormData($("#fault-form"));
    const r = { route: String(form.get("route")).trim() || "*" };
    const num = (k, parse) => { const v = String(form.get(k) || "").trim(); if (v !== "") r[k] = parse(v); };
    num("status", Number);
    num("latency_ms", Number);
    num("rate", Number);
    num("count", Number);
    num("account_id", Number);
    if (form.get("reset")) r.reset = true;
    return r;
  }
  async function putFaults(rules) {
    return act(() => api("PUT", "faults", { rules }));
  }
  // removeFault puts back the rules as the table shows them (rules), all but f.
  function removeFault(rules, f) {
    return putFaults(rules.filter((g) => g !== f).map(ruleOf));
  }

  // Checkpoints.
  function drawCheckpoints(data) {
    const list = listOf(data, "checkpoints");
    rows("checkpoints", list, (c) => c.name, (c) => el("tr", { "data-id": c.name },
      el("td", { class: "name" }, c.name),
      el("td", {}, when(c.time || c.created_at || c.saved_at)),
      el("td", { class: "num" }, bytes(c.size !== undefined ? c.size : c.size_bytes)),
      el("td", {},
        el("button", { type: "button", class: "small", "data-restore": c.name,
          onclick: () => act(() => api("POST", "checkpoints/" + encodeURIComponent(c.name) + "/restore", {})) }, "Restore"),
        " ",
        el("button", { type: "button", class: "small danger", "data-delete": c.name,
          onclick: () => act(() => api("DELETE", "checkpoints/" + encodeURIComponent(c.name))) }, "Delete"))),
    "No checkpoint saved.", 4);
  }

  // act runs an action, shows its error if it failed and reads everything again at once.
  async function act(call, button) {
    if (button) button.disabled = true;
    try {
      const r = await call();
      if (r.status === 404 && !r.ok) banner("Not available: this resellerd does not serve that route yet.");
      else if (!r.ok) banner(r.error.message || "The request failed (" + r.status + ").");
      return r;
    } catch (e) {
      banner("resellerd did not answer: " + e.message);
      return null;
    } finally {
      if (button) button.disabled = false;
      await refresh();
    }
  }

  // Reading everything.
  async function refresh() {
    const results = await Promise.allSettled([
      load("overview", "overview", drawOverview),
      load("journal", journalQuery(), drawJournal),
      load("faults", "faults", drawFaults),
      load("checkpoints", "checkpoints", drawCheckpoints),
    ]);
    const failed = results.find((r) => r.status === "rejected");
    if (failed) live(false, "last read failed: " + failed.reason.message);
    else live(true, "live · updated " + new Date().toLocaleTimeString());
  }
  let soon = 0;
  function refreshSoon() {
    clearTimeout(soon);
    soon = setTimeout(refresh, 150);
  }
  async function poll() {
    try { await refresh(); } finally { setTimeout(poll, document.hidden ? HIDDEN_POLL_MS : POLL_MS); }
  }

  // wire connects the buttons and forms, and starts reading.
  function wire() {
    for (const b of document.querySelectorAll("[data-advance]")) {
      b.addEventListener("click", () => act(() => api("POST", "clock", { advance: b.dataset.advance }), b));
    }
    $("#journal-filters").addEventListener("input", refreshSoon);
    $("#journal-filters").addEventListener("submit", (e) => { e.preventDefault(); refreshSoon(); });
    $("#journal-clear").addEventListener("click", (e) => act(() => api("DELETE", "requests"), e.currentTarget));
    $("#fault-form").addEventListener("submit", (e) => {
      e.preventDefault();
      putFaults(state.faults.map(ruleOf).concat([ruleFromForm()]));
    });
    $("#faults-clear").addEventListener("click", (e) => act(() => api("DELETE", "faults"), e.currentTarget));
    $("#checkpoint-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const name = $("#checkpoint-name").value.trim();
      if (name) act(() => api("POST", "checkpoints", { name }), $("#checkpoint-save"));
    });
    poll();
  }

  document.addEventListener("DOMContentLoaded", wire);
})();
