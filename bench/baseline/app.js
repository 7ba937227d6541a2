// The benchmark's baseline: the console's reservations table and node grid written by hand
// in plain JavaScript, the limit `cargo xtask bench` measures the console against.
// It takes no shortcut the console could not take: the same endpoints and key handling
// (memory, or sessionStorage when the user opts in), the same poll rules (CONTRACT.md),
// keyed in-place updates of the grid. It exposes the console's benchmark hook: the nodes
// page root carries `data-poll-count`, the number of polls finished.
"use strict";

const KEPT = "baseline.connection";
const DEFAULT_POLL_MS = 5000;
const MAX_BACKOFF_MS = 60000;
const TIMEOUT_MS = 10000;
const IDLE_STOP_MS = 30 * 60 * 1000;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** Above this many nodes the grid shows cells only, as the console's does. */
const COMPACT_ABOVE = 48;

const main = document.getElementById("main");
let connection = restore();
/** Stops whatever the page being left still runs (timers, listeners). */
let leave = () => {};

function restore() {
  try {
    return JSON.parse(sessionStorage.getItem(KEPT));
  } catch {
    return null;
  }
}

function el(tag, props, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/** Sets a text node's data only when it differs, so an unchanged value costs no mutation. */
function setText(node, text) {
  if (node.data !== text) node.data = text;
}

class ApiError extends Error {
  constructor(message, status, retryAfterMs) {
    super(message);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

/** `retry-after` in seconds or as an HTTP date (RFC 9110), in milliseconds. */
function retryAfterMs(value) {
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

async function api(path) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  try {
    const response = await fetch(connection.base + path, {
      headers: { Authorization: "Bearer " + connection.key, Accept: "application/json" },
      signal: abort.signal,
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new ApiError(
        `${response.status}: ${body.message || body.error || response.statusText}`,
        response.status,
        retryAfterMs(response.headers.get("retry-after")),
      );
    }
    return await response.json();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(error.name === "AbortError" ? "timed out" : "network error", 0, null);
  } finally {
    clearTimeout(timer);
  }
}

/** A revoked key sends the user back to Connect, forgetting the kept one. */
function rejected(error) {
  if (error.status !== 401) return false;
  connection = null;
  sessionStorage.removeItem(KEPT);
  route();
  return true;
}

function go(path) {
  history.pushState(null, "", path);
  route();
}

function route() {
  leave();
  leave = () => {};
  const path = location.pathname;
  const nodes = path.match(/^\/reservations\/(\d+)\/nodes$/);
  if (!connection) connectPage(path === "/" ? "/reservations" : path + location.search);
  else if (path === "/") go("/reservations");
  else if (path === "/reservations") reservationsPage();
  else if (nodes) nodesPage(nodes[1]);
  else main.replaceChildren(el("h1", {}, "Page not found"));
}

function connectPage(next) {
  const base = el("input", { id: "base-url", name: "base_url", value: "/api" });
  const key = el("input", { id: "api-key", name: "api_key", type: "password", autocomplete: "off" });
  const keep = el("input", { type: "checkbox", name: "keep" });
  const problem = el("p", { className: "error" });
  const form = el(
    "form",
    {},
    el("label", { htmlFor: "base-url" }, "API base URL"),
    base,
    el("label", { htmlFor: "api-key" }, "API key"),
    key,
    el("label", {}, keep, " Keep the key for this tab"),
    problem,
    el("button", { type: "submit" }, "Connect"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const typed = { base: base.value.replace(/\/+$/, ""), key: key.value.trim() };
    if (!typed.key.startsWith("eco_")) {
      problem.textContent = "An EcoHash API key starts with eco_.";
      return;
    }
    connection = typed;
    try {
      await api("/gpu-reservations");
    } catch (error) {
      connection = null;
      problem.textContent = error.message;
      return;
    }
    if (keep.checked) sessionStorage.setItem(KEPT, JSON.stringify(typed));
    else sessionStorage.removeItem(KEPT);
    go(next);
  });
  main.replaceChildren(el("h1", {}, "Connect to your account"), form);
}

const utcDate = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const relativeFormat = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const UNITS = [["year", 31536e6], ["month", 2592e6], ["day", 864e5], ["hour", 36e5], ["minute", 6e4]];

/** "in 11 months", "2 days ago": the largest unit that fits. */
function relative(time) {
  const delta = Date.parse(time) - Date.now();
  const [unit, ms] = UNITS.find(([, ms]) => Math.abs(delta) >= ms) ?? ["second", 1000];
  return relativeFormat.format(Math.trunc(delta / ms), unit);
}

/** Label, tone and explanation of each documented status (seed 004). */
const STATUSES = {
  assigning: ["Assigning", "info", "EcoLink is assigning nodes to this reservation."],
  scheduled: ["Scheduled", "info", "The nodes are being set up."],
  awaiting_payment: ["Awaiting payment", "warning", "The reservation starts when its first invoice is paid."],
  active: ["Active", "ok", "The reserved GPUs are yours."],
  past_due: ["Past due", "danger", "A payment is overdue. New launches paused."],
  suspended: ["Suspended", "danger", "Payment stayed overdue, so the workloads were stopped."],
  ended: ["Ended", "neutral", "The term is over."],
};

function status(r) {
  const [label, tone, explanation] = STATUSES[r.status] ?? [`${r.status} (unrecognised)`, "unknown", "A status this page does not know."];
  return el("span", {}, el("span", { className: `badge tone-${tone}` }, label), el("span", { className: "cell-sub" }, explanation));
}

/** What comes next for a reservation, as the console's "Next" column says it. */
function next(r) {
  const future = (time) => time && Date.parse(time) > Date.now();
  switch (r.status) {
    case "awaiting_payment":
      return "starts when the first invoice is paid";
    case "assigning":
    case "scheduled":
      return future(r.starts_at) ? `starts ${relative(r.starts_at)}` : "being set up";
    case "active":
      return r.ends_at ? (future(r.ends_at) ? `ends ${relative(r.ends_at)}` : `term end passed ${relative(r.ends_at)}`) : "—";
    case "past_due":
      return r.stops_at ? `workloads stop ${relative(r.stops_at)}` : "—";
    case "ended":
      return r.ended_at || r.ends_at ? `ended ${relative(r.ended_at || r.ends_at)}` : "—";
    default:
      return "—";
  }
}

const BANNERS = {
  past_due: "Payment overdue: new launches are paused",
  awaiting_payment: "Starts when the first invoice is paid",
  suspended: "Suspended: workloads were stopped",
};

/** Statuses whose nodes run workloads: the rows that get a GPUs-in-use figure. */
const RUNS_WORKLOADS = new Set(["active", "past_due"]);

function reservationRow(r, inUse) {
  const dates = r.starts_at
    ? `${utcDate.format(new Date(r.starts_at))} → ${r.ends_at ? utcDate.format(new Date(r.ends_at)) : "no end set"}`
    : "Starts when the first invoice is paid";
  const nodes = `${r.node_count} node${r.node_count === 1 ? "" : "s"} × ${r.gpus_per_node} GPUs`;
  return el(
    "tr",
    {},
    el("td", {}, el("a", { href: `/reservations/${r.id}/nodes` }, `#${r.id}`), el("span", { className: "cell-sub" }, r.contract_ref ?? "no contract ref")),
    el("td", {}, status(r)),
    el("td", {}, r.gpu_type, el("span", { className: "cell-sub" }, `region ${r.region_id}`)),
    el("td", { className: "num" }, el("strong", {}, String(r.reserved_gpus)), el("span", { className: "cell-sub" }, nodes), inUse),
    el("td", {}, `${r.term_months} months, billed ${r.billing_period}`),
    el("td", {}, dates),
    el("td", {}, next(r)),
  );
}

/** A select over the distinct values of one field; `chosen` is called on every change. */
function filter(label, all, values, chosen) {
  const select = el("select", {}, el("option", { value: "" }, all), ...values.map((v) => el("option", { value: v }, v)));
  select.addEventListener("change", () => chosen(select.value));
  return el("label", { className: "filter" }, label, " ", select);
}

async function reservationsPage() {
  let current = true;
  leave = () => (current = false);
  const note = el("p", { className: "note" }, "Loading…");
  main.replaceChildren(el("h1", {}, "Reservations"), note);
  let list;
  try {
    list = await api("/gpu-reservations");
  } catch (error) {
    if (current && !rejected(error)) note.textContent = error.message;
    return;
  }
  if (!current) return;
  if (!list.length) return note.replaceWith(el("p", { className: "note" }, "No reservations yet."));
  const banners = list
    .filter((r) => r.status in BANNERS)
    .map((r) => el("a", { className: "banner", href: `/reservations/${r.id}/nodes` }, `#${r.id}: ${BANNERS[r.status]}`));
  const rows = list.map((r) => {
    const inUse = el("span", { className: "cell-sub" }, RUNS_WORKLOADS.has(r.status) ? "…" : "");
    return { r, inUse, row: reservationRow(r, inUse) };
  });
  const tbody = el("tbody", {}, ...rows.map(({ row }) => row));
  const count = el("p", { className: "note" }, `${list.length} reservations`);
  const shown = { region_id: "", status: "" };
  const refilter = (field) => (value) => {
    shown[field] = value;
    const kept = rows.filter(({ r }) => (!shown.region_id || r.region_id === shown.region_id) && (!shown.status || r.status === shown.status));
    tbody.replaceChildren(...kept.map(({ row }) => row));
    count.textContent = kept.length === list.length ? `${list.length} reservations` : `${kept.length} of ${list.length} reservations`;
  };
  const distinct = (field) => [...new Set(list.map((r) => r[field]))];
  const headings = ["Reservation", "Status", "GPU type", "Reserved GPUs", "Term", "Start → end (UTC)", "Next"];
  note.replaceWith(
    ...banners,
    el(
      "div",
      { className: "filters" },
      filter("Region", "All regions", distinct("region_id"), refilter("region_id")),
      filter("Status", "All statuses", distinct("status"), refilter("status")),
      count,
    ),
    el(
      "table",
      { className: "reservations-table" },
      el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", { scope: "col" }, h)))),
      tbody,
    ),
  );
  readInUse(rows, () => current);
}

/** GPUs in use of reserved, as the console shows them: one `/nodes` read at a time, after the table. */
async function readInUse(rows, current) {
  for (const { r, inUse } of rows.filter(({ r }) => RUNS_WORKLOADS.has(r.status))) {
    try {
      const answer = await api(`/gpu-reservations/${encodeURIComponent(r.id)}/nodes`);
      if (!current()) return;
      const used = answer.nodes.reduce((sum, n) => sum + (n.gpus_in_use ?? n.workloads.reduce((s, w) => s + w.gpus, 0)), 0);
      inUse.textContent = answer.workloads_unknown
        ? "placement unknown (region unreachable)"
        : `${used} of ${r.node_count * r.gpus_per_node} GPUs in use`;
    } catch (error) {
      if (!current()) return;
      inUse.textContent = "—";
      inUse.title = error.message;
    }
  }
}

/** The test interval `?poll_ms=N` is honoured only on loopback hosts, like the console's. */
function pollInterval() {
  const asked = Number(new URLSearchParams(location.search).get("poll_ms"));
  return LOOPBACK.has(location.hostname) && asked > 0 ? asked : DEFAULT_POLL_MS;
}

const KINDS = {
  gpu_instance: ["GPU instance", "k-gpu-instance", "gpu-instances"],
  gpu_cluster: ["GPU cluster", "k-gpu-cluster", "gpu-clusters"],
  inference_instance: ["Model instance", "k-inference", "inference-instances"],
  fine_tune: ["Fine-tuning job", "k-fine-tune", "fine-tunes"],
};
const kindOf = (kind) => KINDS[kind] ?? [`${kind} (unrecognised)`, "k-unknown", null];
const NODE_STATES = { ready: ["Ready", "ok"], preparing: ["Preparing", "info"], under_maintenance: ["Under maintenance", "warning"] };

/** One cell per GPU: its workloads in order, then use no workload accounts for, then free. */
function gpuCells(node) {
  const cells = [];
  node.workloads.forEach((w, i) => {
    for (let g = 0; g < w.gpus && cells.length < node.gpus; g++) cells.push(i);
  });
  while (cells.length < Math.min(node.gpus, node.gpus_in_use ?? 0)) cells.push("unlisted");
  while (cells.length < node.gpus) cells.push("free");
  return cells;
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** Text from the API in HTML, element text or quoted attribute value: never markup. */
const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** What a card shows below its header — use, cells, workloads — as HTML, set whole. */
function nodeBody(node) {
  const inUse = node.gpus_in_use ?? node.workloads.reduce((n, w) => n + w.gpus, 0);
  const takes = node.state === "ready";
  const cells = gpuCells(node).map((use, g) => {
    const w = node.workloads[use];
    const [kind, kindClass] = w ? kindOf(w.kind) : [];
    const what = w ? `${w.name} (${kind} #${w.id})` : use === "unlisted" ? "in use by no listed workload" : takes ? "free" : "idle, the node is not taking launches";
    return `<li class="gpu-cell ${w ? kindClass : use}" title="${esc(`GPU ${g + 1} · ${what}`)}">${w ? use + 1 : ""}</li>`;
  });
  const workloads = node.workloads.map((w, i) => {
    const [kind, kindClass, collection] = kindOf(w.kind);
    const name = collection ? `<a href="/${collection}/${esc(w.id)}">${esc(w.name)}</a>` : esc(w.name);
    const meta = `${kind} #${w.id} · ${w.gpus === 1 ? "1 GPU" : `${w.gpus} GPUs`}`;
    return `<li class="workload"><span class="swatch ${kindClass}">${i + 1}</span>${name}<span class="workload-meta">${esc(meta)}</span></li>`;
  });
  const use = takes ? `${inUse} of ${node.gpus} in use · ${node.gpus - inUse} free` : `${inUse} of ${node.gpus} in use · ${node.gpus - inUse} idle, not taking launches`;
  return `<p class="node-use">${esc(use)}</p><ol class="gpu-cells">${cells.join("")}</ol><ol class="node-workloads">${workloads.join("")}</ol>`;
}

/** What a card's body is drawn from, to tell whether it changed. */
const placementOf = (node) => JSON.stringify([node.state, node.gpus, node.gpus_in_use, node.workloads]);

/** A card slot of the window: it shows whichever node is at its place as the grid scrolls. */
function nodeCard() {
  const badge = el("span", { className: "badge" }, "");
  const body = el("div", { className: "node-body" });
  const title = el("h2", {}, "");
  const card = el("article", { className: "node-card" }, el("header", {}, title, badge), body);
  return { card, badge, body, title, name: null, position: null, size: null, state: null, placement: null };
}

/** Rows drawn beyond each edge of the screen, as the console's window. */
const MARGIN_ROWS = 2;

/** The grid's layout as laid out: columns and row pitch from its stylesheet, scroll and height. */
function layoutOf(scroller, grid) {
  const style = getComputedStyle(grid);
  const columns = Math.max(1, style.gridTemplateColumns.split(" ").filter((t) => t.endsWith("px")).length);
  const row = parseFloat(style.gridAutoRows);
  const gap = parseFloat(style.rowGap) || 0;
  return { columns, pitch: row > 0 ? row + gap : 80, view: scroller.clientHeight || 1000, scroll: scroller.scrollTop };
}

/** The items on screen plus the margin, and the space of the rows not drawn. */
function windowOf(items, v) {
  const rows = Math.ceil(items / v.columns);
  const first = Math.min(Math.floor(v.scroll / v.pitch), Math.max(0, rows - 1));
  const visible = Math.max(1, Math.ceil((v.scroll + v.view) / v.pitch) - Math.floor(v.scroll / v.pitch));
  const startRow = Math.max(0, first - MARGIN_ROWS);
  const endRow = Math.min(rows, first + visible + MARGIN_ROWS);
  return {
    start: Math.min(items, startRow * v.columns),
    end: Math.min(items, endRow * v.columns),
    before: startRow * v.pitch,
    after: (rows - Math.max(endRow, startRow)) * v.pitch,
  };
}

/** Brings one card up to date: the badge if the state changed, the body if the placement did. */
function updateCard(view, node, workloadsUnknown) {
  if (view.state !== node.state) {
    const [label, tone] = NODE_STATES[node.state] ?? [`${node.state} (unrecognised)`, "unknown"];
    view.state = node.state;
    view.badge.className = `badge tone-${tone}`;
    setText(view.badge.firstChild, label);
  }
  // Stale placement is kept as it was, never shown as zeros (CONTRACT.md).
  if (workloadsUnknown) return;
  const placement = placementOf(node);
  if (view.placement === placement) return;
  view.placement = placement;
  view.body.innerHTML = nodeBody(node);
}

function nodesPage(id) {
  const interval = pollInterval();
  const status = document.createTextNode("Loading…");
  const pause = el("button", { type: "button" }, "Pause");
  const totals = document.createTextNode("");
  const grid = el("div", { className: "node-grid" });
  const scroller = el("div", { className: "node-scroll", tabIndex: 0 }, grid);
  scroller.setAttribute("role", "region");
  scroller.setAttribute("aria-label", "Node cards");
  const root = el(
    "section",
    { className: "nodes-page" },
    el("h1", {}, `Reservation #${id}: nodes`),
    el("p", { className: "note" }, status, " ", pause),
    el("p", { className: "totals" }, totals),
    scroller,
  );
  root.dataset.pollCount = "0";
  main.replaceChildren(root);

  const slots = [];
  let latest = null;
  let polls = 0;
  let timer = 0;
  let inFlight = false;
  let paused = false;
  let attempt = 0;
  let lastOk = 0;
  let lastActivity = Date.now();
  let problem = "";
  let left = false;

  function showTotals(response) {
    const count = (n) => n.toLocaleString("en");
    const gpus = response.nodes.reduce((n, node) => n + node.gpus, 0);
    if (response.workloads_unknown) return setText(totals, `${count(gpus)} GPUs · use unknown (region unreachable)`);
    const inUse = response.nodes.reduce((n, node) => n + (node.gpus_in_use ?? 0), 0);
    setText(totals, `${count(gpus)} GPUs · ${count(inUse)} in use · ${count(gpus - inUse)} free`);
  }

  function render(response) {
    root.classList.toggle("stale", response.workloads_unknown);
    grid.classList.toggle("compact", response.nodes.length > COMPACT_ABOVE);
    showTotals(response);
    latest = response;
    draw();
  }

  /** The cards of the window, in slots reused as the grid scrolls; spacers for the rest. */
  function draw() {
    if (!latest) return;
    const nodes = latest.nodes;
    const w = windowOf(nodes.length, layoutOf(scroller, grid));
    grid.style.paddingTop = `${w.before}px`;
    grid.style.paddingBottom = `${w.after}px`;
    const count = w.end - w.start;
    while (slots.length < count) {
      const view = nodeCard();
      slots.push(view);
      grid.append(view.card);
    }
    while (slots.length > count) slots.pop().card.remove();
    for (let i = 0; i < count; i++) {
      const node = nodes[w.start + i];
      const view = slots[i];
      if (view.name !== node.display_name) {
        view.name = node.display_name;
        setText(view.title.firstChild, node.display_name);
      }
      if (view.position !== w.start + i + 1) {
        view.position = w.start + i + 1;
        view.card.setAttribute("aria-posinset", String(view.position));
      }
      if (view.size !== nodes.length) {
        view.size = nodes.length;
        view.card.setAttribute("aria-setsize", String(view.size));
      }
      updateCard(view, node, latest.workloads_unknown);
    }
  }
  scroller.addEventListener("scroll", draw);

  function showStatus() {
    if (paused) setText(status, "Paused.");
    else if (problem) setText(status, problem);
    else if (lastOk) setText(status, `Updated ${Math.round((Date.now() - lastOk) / 1000)} s ago.`);
  }

  function schedule(delay) {
    if (!paused) timer = setTimeout(poll, delay);
  }

  async function poll() {
    timer = 0;
    if (document.hidden || paused) return;
    if (Date.now() - lastActivity > IDLE_STOP_MS) {
      paused = true;
      setText(pause.firstChild, "Resume");
      setText(status, "Paused after 30 minutes without activity.");
      return;
    }
    inFlight = true;
    try {
      const response = await api(`/gpu-reservations/${encodeURIComponent(id)}/nodes`);
      if (left) return;
      render(response);
      attempt = 0;
      lastOk = Date.now();
      problem = "";
      schedule(interval);
    } catch (error) {
      if (left || rejected(error)) return;
      attempt += 1;
      problem = `Update failed (${error.message}); retrying.`;
      schedule(error.retryAfterMs ?? Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempt) + Math.random() * 1000);
    } finally {
      inFlight = false;
      if (!left) {
        polls += 1;
        root.dataset.pollCount = String(polls);
        showStatus();
      }
    }
  }

  function resumeWhenShown() {
    if (!document.hidden && !timer && !inFlight) poll();
  }
  function active() {
    lastActivity = Date.now();
  }
  pause.addEventListener("click", () => {
    paused = !paused;
    setText(pause.firstChild, paused ? "Resume" : "Pause");
    if (paused) clearTimeout(timer);
    else {
      active();
      resumeWhenShown();
    }
    showStatus();
  });
  const tick = setInterval(showStatus, 1000);
  document.addEventListener("visibilitychange", resumeWhenShown);
  addEventListener("resize", draw);
  addEventListener("pointerdown", active);
  addEventListener("keydown", active);
  leave = () => {
    clearTimeout(timer);
    clearInterval(tick);
    left = true;
    document.removeEventListener("visibilitychange", resumeWhenShown);
    removeEventListener("resize", draw);
    removeEventListener("pointerdown", active);
    removeEventListener("keydown", active);
  };
  poll();
}

// Links inside the page navigate without reloading, as the console's router does.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href^='/']");
  if (link && event.button === 0 && !event.metaKey && !event.ctrlKey) {
    event.preventDefault();
    go(link.getAttribute("href"));
  }
});
addEventListener("popstate", route);
route();
