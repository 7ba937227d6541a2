// The benchmark's baseline: the console's reservations table, node grid and overview written
// by hand in plain JavaScript, the limit `cargo xtask bench` measures the console against.
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
  else if (path === "/overview") overviewPage();
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

/** Requests a minute the overview may send (half of the key's 200), as the console's. */
const OVERVIEW_PER_MINUTE = 100;
const REQUEST_GAP_MS = 60000 / OVERVIEW_PER_MINUTE;
/** Statuses whose reservations have nodes to read: all but assigning and ended (and an unknown one). */
const hasNodes = (r) => r.status !== "assigning" && r.status !== "ended";
/** Statuses open to launches: the free GPUs of the others are idle behind closed launches. */
const OPEN = new Set(["active"]);
const MICROS = 1000000;

/** `$1,234.50`, `$0.0125`: an amount held in whole micro-dollars, exactly. */
function usd(micros) {
  const abs = Math.abs(micros);
  let frac = String(abs % MICROS).padStart(6, "0");
  while (frac.length > 2 && frac.endsWith("0")) frac = frac.slice(0, -1);
  return `${micros < 0 ? "-" : ""}$${Math.floor(abs / MICROS).toLocaleString("en")}.${frac}`;
}

/** One reservation's GPUs by what they do, from its latest `/nodes` (all unknown before it). */
function split(r, answer) {
  const s = { inUse: 0, free: 0, idleClosed: 0, notAvailable: 0, unknown: 0 };
  if (!answer) {
    s.unknown = Math.max(0, r.reserved_gpus);
    return s;
  }
  for (const node of answer.unreadable_nodes ?? []) s.unknown += Math.max(0, node.gpus ?? 0);
  for (const node of answer.nodes) {
    const gpus = Math.max(0, node.gpus);
    if (node.state !== "ready") s.notAvailable += gpus;
    else if (answer.workloads_unknown) s.unknown += gpus;
    else {
      const used = Math.min(gpus, Math.max(0, node.gpus_in_use ?? node.workloads.reduce((n, w) => n + w.gpus, 0)));
      s.inUse += used;
      s.free += gpus - used;
    }
  }
  if (!OPEN.has(r.status)) [s.idleClosed, s.free] = [s.free, 0];
  return s;
}

const PARTS = ["inUse", "free", "idleClosed", "notAvailable", "unknown"];
const reservedOf = (s) => PARTS.reduce((n, part) => n + s[part], 0);
const add = (a, b) => Object.fromEntries(PARTS.map((part) => [part, a[part] + b[part]]));
const figure = (n) => n.toLocaleString("en");

/** The split's cells, in the console's columns: reserved, in use, free, idle closed, not available, unknown. */
function splitCells(s) {
  return [reservedOf(s), ...PARTS.map((part) => s[part])].map((n) => el("td", { className: "num" }, figure(n)));
}

/** A small line of the share of GPUs in use at each read since the page opened, with min, mean and max. */
function useLine(history) {
  if (history.length < 2) return [el("span", { className: "muted" }, "no figures yet")];
  const [first, last] = [history[0].t, history[history.length - 1].t];
  const points = history.map(({ t, share }) => `${(((t - first) / (last - first || 1)) * 120).toFixed(1)},${((1 - share) * 28).toFixed(1)}`);
  const shares = history.map((h) => h.share);
  const percent = (x) => `${Math.round(x * 100)} %`;
  const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
  const box = el("span", { className: "spark-box" });
  box.innerHTML = `<svg class="spark" viewBox="0 0 120 28" preserveAspectRatio="none" role="img"><polyline class="spark-line" points="${points.join(" ")}"></polyline></svg>`;
  return [box, el("span", { className: "cell-sub num" }, `min ${percent(Math.min(...shares))} · avg ${percent(mean)} · max ${percent(Math.max(...shares))}`)];
}

/** What the console's overview does (src/reads/fleet.rs, src/pages/overview.rs): the list,
 * drawn at once with every figure unknown, then each reservation's `/nodes` one request at a
 * time (a gap of 60 s / 100 after each), then each one's detail (all but the ended) for its
 * rate, then the nodes again, each reservation every 5 s or n × the gap, whichever is longer.
 * Every answer redraws the sums and the rows it concerns; each row's age is redrawn every
 * second. Left out: the at-risk panel and the CSV button. */
async function overviewPage() {
  let current = true;
  let tick = 0;
  leave = () => {
    current = false;
    clearInterval(tick);
  };
  const readLine = el("p", { className: "overview-reads muted" }, "Reading the reservations… ");
  main.replaceChildren(
    el("section", { className: "overview-page" },
      el("h1", {}, "Overview"),
      el("p", { className: "subtitle" }, "Every reserved GPU of the account: what is working, what sits idle, what is unknown."),
      readLine),
  );
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  let list;
  try {
    list = await api("/gpu-reservations");
  } catch (error) {
    if (current && !rejected(error)) readLine.textContent = error.message;
    return;
  }
  if (!current) return;
  const wanted = list.filter(hasNodes);
  const interval = Math.max(DEFAULT_POLL_MS, REQUEST_GAP_MS * wanted.length);
  readLine.textContent = `Each reservation's nodes are read every ${interval / 1000} s, one request at a time for the whole page: at most ${OVERVIEW_PER_MINUTE} requests a minute.`;
  const reads = new Map();
  /** Reservations whose latest `/nodes` read failed: their figures are kept, marked stale. */
  const failed = new Set();
  const rates = new Map();
  const histories = new Map(wanted.map((r) => [r.id, []]));

  const sumLine = el("p", { className: "fleet-sum-line num" });
  const idleLine = el("p", { className: "idle-cost panel" });
  const splitTable = (caption, id, heading) => {
    const body = el("tbody");
    const foot = el("tfoot");
    const headings = [heading, "Reserved", "In use", "Free to launch on", "Idle, launches closed", "Not available", "Unknown"];
    const table = el("table", { className: "data-table split-table", id }, el("caption", {}, caption),
      el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", { scope: "col" }, h)))), body, foot);
    return { table, body, foot };
  };
  const byRegion = splitTable("By region", "by-region", "Region");
  const byType = splitTable("By GPU type", "by-gpu-type", "GPU type");
  const rows = new Map(wanted.map((r) => {
    const freshness = el("span", { className: "cell-sub freshness" }, el("span", { className: "muted" }, "not read yet"));
    const [label, tone] = STATUSES[r.status] ?? [`${r.status} (unrecognised)`, "unknown"];
    const head = el("td", {}, el("a", { className: "row-link", href: `/reservations/${r.id}` }, `#${r.id}`), " ",
      el("span", { className: `badge tone-${tone}` }, label), el("span", { className: "cell-sub" }, `${r.region_id} · ${r.gpu_type}`), freshness);
    const row = el("tr", {});
    row.dataset.reservation = String(r.id);
    return [r.id, { r, row, head, freshness }];
  }));

  /** "updated 4 s ago", or the stale mark and why, as the console's rows say it. */
  function showFreshness({ r, freshness }) {
    const read = reads.get(r.id);
    if (!read && !failed.has(r.id)) return;
    const seconds = read ? Math.round((Date.now() - read.at) / 1000) : 0;
    const why = !read
      ? "not read: the read failed."
      : failed.has(r.id)
        ? "the latest read failed."
        : read.answer.workloads_unknown
          ? "region unreachable"
          : seconds * 1000 > interval * 2
            ? "older than two refreshes"
            : "";
    const text = read ? `updated ${seconds} s ago${why ? ` — ${why}` : ""}` : why;
    if (freshness.shown === text) return;
    freshness.shown = text;
    freshness.replaceChildren(...(why ? [el("span", { className: "stale-mark" }, "Stale"), " "] : []), el("span", { className: "num" }, text));
  }

  /** The sums, the idle cost and every row, from what has been read so far. */
  function draw(only) {
    const splits = new Map(wanted.map((r) => [r.id, split(r, reads.get(r.id)?.answer)]));
    const zero = split({ reserved_gpus: 0, status: "active" }, null);
    const total = [...splits.values()].reduce(add, zero);
    sumLine.textContent = `${figure(reservedOf(total))} GPUs = ${figure(total.inUse)} in use + ${figure(total.free)} free to launch on + ${figure(total.idleClosed)} idle, launches closed + ${figure(total.notAvailable)} not available + ${figure(total.unknown)} unknown`;
    for (const [table, field] of [[byRegion, "region_id"], [byType, "gpu_type"]]) {
      const groups = new Map();
      for (const r of wanted) groups.set(r[field], add(groups.get(r[field]) ?? zero, splits.get(r.id)));
      table.body.replaceChildren(...[...groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, s]) => el("tr", {}, el("th", { scope: "row" }, name), ...splitCells(s))));
      table.foot.replaceChildren(el("tr", { className: "sum-row" }, el("th", { scope: "row" }, "All"), ...splitCells(total)));
    }
    let idle = 0;
    const notCounted = [];
    const costs = new Map();
    for (const r of wanted) {
      const s = splits.get(r.id);
      const rate = rates.get(r.id);
      if (rate === undefined || s.unknown > 0) {
        notCounted.push(`#${r.id}`);
        continue;
      }
      costs.set(r.id, rate * (s.free + s.idleClosed));
      idle += rate * s.free;
    }
    idleLine.textContent = `${usd(idle)}/h of reserved capacity is idle and open to launches (${usd(idle * 24)} a day).` +
      (notCounted.length ? ` Not counted: ${notCounted.join(", ")}, whose use or rate is not read yet.` : "");
    for (const view of only ? [rows.get(only)] : rows.values()) {
      const { r, row, head } = view;
      showFreshness(view);
      const cost = costs.get(r.id);
      const costCell = el("td", { className: "num idle-cost-cell" },
        cost === undefined ? el("span", { className: "muted" }, rates.has(r.id) ? "unknown" : "rate not read") : `${usd(cost)}/h`,
        ...(cost === undefined ? [] : [el("span", { className: "cell-sub" }, `${usd(cost * 24)}/day`)]));
      row.replaceChildren(head, ...splitCells(splits.get(r.id)), costCell, el("td", {}, ...useLine(histories.get(r.id))));
    }
  }

  const headings = ["Reservation", "Reserved", "In use", "Free", "Idle, closed", "Not available", "Unknown", "Idle cost", "Use since opened"];
  readLine.after(
    idleLine,
    el("section", { className: "panel fleet-sums" }, el("h2", {}, "Reserved GPUs"), sumLine, byRegion.table, byType.table),
    el("section", { className: "panel" }, el("h2", {}, "By reservation"),
      el("table", { className: "data-table fleet-table" },
        el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, ...[...rows.values()].map(({ row }) => row)))),
  );
  draw();
  tick = setInterval(() => rows.forEach(showFreshness), 1000);

  /** One read, at least the gap after the previous one ended. */
  let lastEnd = performance.now();
  async function paced(path) {
    await pause(Math.max(0, lastEnd + REQUEST_GAP_MS - performance.now()));
    if (!current) throw new Error("left");
    try {
      return await api(path);
    } finally {
      lastEnd = performance.now();
    }
  }
  async function readNodes(r) {
    try {
      const answer = await paced(`/gpu-reservations/${encodeURIComponent(r.id)}/nodes`);
      if (!current) return;
      reads.set(r.id, { answer, at: Date.now() });
      failed.delete(r.id);
      const s = split(r, answer);
      const reserved = reservedOf(s);
      if (s.unknown === 0 && reserved > 0) histories.get(r.id).push({ t: Date.now(), share: s.inUse / reserved });
    } catch (error) {
      if (!current || rejected(error)) return;
      failed.add(r.id);
    }
    draw(r.id);
  }
  try {
    for (const r of wanted) await readNodes(r);
    for (const r of list.filter((r) => r.status !== "ended")) {
      try {
        const detail = await paced(`/gpu-reservations/${encodeURIComponent(r.id)}`);
        const rate = detail.payment?.rate_usd_per_gpu_hour;
        if (typeof rate === "number") rates.set(r.id, Math.round(rate * MICROS));
      } catch (error) {
        if (!current || rejected(error)) return;
      }
      draw();
    }
    for (let i = 0; current && wanted.length; i = (i + 1) % wanted.length) {
      const due = (reads.get(wanted[i].id)?.at ?? 0) + interval - Date.now();
      await pause(Math.max(0, due));
      if (current) await readNodes(wanted[i]);
    }
  } catch {
    // Left the page: nothing more to read.
  }
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
