// mealwatch complaint triage page: plain JS, no libraries; every text from the server goes in with textContent.
"use strict";

const $ = (sel) => document.querySelector(sel);
const PAGE_SIZE = 25;
const NEXT = { new: [["in_progress", "start work"]], in_progress: [["resolved", "resolve"], ["new", "back to new"]],
  resolved: [["in_progress", "reopen"]] };
const COLOURS = ["#d62d20", "#f08c00", "#7b3fa0", "#1f77b4", "#2ca02c", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
// pages are fetched by cursor (keyset paging): cursors holds the cursor of each page after the first one shown
const state = { labels: [], offset: 0, total: 0, zone: "UTC", cursors: [], next: null, csrf: null, accounts: false };
function resetPaging() { state.offset = 0; state.cursors = []; }

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// with accounts on, a change carries the session's CSRF token; an ended session goes back to the login page
async function api(path, options = {}) {
  const method = (options.method || "GET").toUpperCase();
  if (state.csrf && method !== "GET") options = { ...options, headers: { ...(options.headers || {}), "X-CSRF-Token": state.csrf } };
  const response = await fetch(path, options);
  if (response.status === 401 && state.accounts) { window.location.assign("/login"); throw new Error("log in again"); }
  const type = response.headers.get("content-type") || "";
  const body = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new Error((body && body.error) || `${response.status} ${response.statusText}`);
  return body;
}

// a saving request carries a fresh Idempotency-Key, so that the server saves it once however often it arrives
function idempotencyKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function showError(node, error) {
  node.hidden = !error;
  node.textContent = error ? String(error.message || error) : "";
}

// bidirectional embedding, override and isolate controls (U+202A-202E, U+2066-2069) could flip how a text
// reads on screen ("\u202Etxt.exe" shows as "exe.txt"): they are left out of what is shown (the log keeps the
// text whole), and each shown text is its own direction-isolated paragraph (dir="auto")
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
function visible(text) { return String(text).replace(BIDI_CONTROLS, ""); }

function pretty(label) { return label.replace(/_/g, " "); }
// times come from the API in UTC; they are shown in the service's zone (mealwatch serve --timezone)
function when(iso) {
  if (!iso) return "";
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: state.zone, year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" }).formatToParts(new Date(iso));
  const get = (type) => (parts.find((p) => p.type === type) || {}).value || "";
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")} ${get("timeZoneName")}`;
}
function day(iso) { return iso ? when(iso).slice(0, 10) : ""; }
// the UTC offset of the service's zone on a day, as ISO writes it: "+05:30"
function zoneOffset(dayText) {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: state.zone, timeZoneName: "longOffset" }).formatToParts(new Date(`${dayText}T12:00:00Z`));
  const name = (parts.find((p) => p.type === "timeZoneName") || {}).value || "GMT";
  return name === "GMT" ? "+00:00" : name.slice(3);
}
function nextDay(dayText) { return new Date(Date.parse(`${dayText}T00:00:00Z`) + 86400000).toISOString().slice(0, 10); }
function officerHeaders(extra = {}) {
  const name = ($("#officer").value || "").trim();
  return name ? { ...extra, "X-Officer": name } : extra;
}

// --- classify one complaint --------------------------------------------------------------------

function renderBars(result) {
  const list = $("#labels");
  list.replaceChildren();
  const entries = Object.entries(result.probabilities).sort((a, b) => b[1] - a[1]);
  for (const [label, p] of entries) {
    const fill = el("div", { class: "fill" });
    fill.style.width = `${(p * 100).toFixed(1)}%`;
    const item = el("li", { class: result.labels.includes(label) ? "on" : "", "data-label": label },
      el("span", { text: pretty(label) }), el("div", { class: "track" }, fill), el("span", { class: "num", text: `${Math.round(p * 100)}%` }));
    list.append(item);
  }
}

function renderWords(result, label) {
  const target = $("#words");
  target.replaceChildren();
  const imp = result.importance;
  if (!imp || !imp.scores[label]) { target.textContent = visible(result.text); return; }
  if ((imp.no_clear_signal || []).includes(label)) {
    target.textContent = visible(result.text);
    $("#method").textContent = "no clear signal: no word moved this label measurably";
    return;
  }
  const scores = imp.scores[label];
  const top = Math.max(1e-9, ...scores.map(Math.abs));
  // offsets count Unicode code points (Python's str), not UTF-16 units: slice an array of code points
  const chars = Array.from(result.text);
  const piece = (a, b) => visible(chars.slice(a, b).join(""));
  let at = 0;
  imp.words.forEach((w, i) => {
    if (w.start > at) target.append(piece(at, w.start));
    const mark = el("mark", { text: piece(w.start, w.end), title: `${scores[i] >= 0 ? "+" : ""}${scores[i].toFixed(4)}` });
    const strength = Math.abs(scores[i]) / top;
    mark.style.background = `rgba(var(${scores[i] >= 0 ? "--pos" : "--neg"}), ${(0.08 + 0.62 * strength).toFixed(2)})`;
    target.append(mark);
    at = w.end;
  });
  if (at < chars.length) target.append(piece(at, chars.length));
  const cut = imp.truncated ? " · the text is longer than the model reads: only its highlighted beginning counted" : "";
  $("#method").textContent = `${imp.method === "ig" ? "integrated gradients" : "gradient × input"}: ${imp.note}${cut}`;
}

function renderResult(result) {
  $("#result").hidden = false;
  const badge = $("#urgency");
  badge.className = `badge ${result.urgency}`;
  badge.textContent = `${result.urgency} urgency`;
  const review = $("#review");
  review.hidden = !result.needs_review;
  review.textContent = result.needs_review ? `needs review: ${result.review_reasons.join("; ")}` : "";
  $("#saved").textContent = result.id != null ? `saved as #${result.id}` : "not saved";
  $("#attention-link").href = `/attention?text=${encodeURIComponent(result.text)}`;
  renderBars(result);
  const pick = $("#why-label");
  pick.replaceChildren(...result.labels.map((l) => el("option", { value: l, text: pretty(l) })));
  pick.onchange = () => renderWords(result, pick.value);
  renderWords(result, result.labels[0]);
}

$("#classify-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = $("#classify-btn");
  button.disabled = true;
  showError($("#classify-error"), null);
  try {
    // the page shows which words drove the prediction: it asks for them (the API computes them only when asked)
    const body = { text: $("#text").value, save: $("#save").checked, explain: "grad" };
    if ($("#school").value.trim()) body.school = $("#school").value;
    const headers = { "Content-Type": "application/json", "Idempotency-Key": idempotencyKey() };
    const result = await api("/api/classify", { method: "POST", headers, body: JSON.stringify(body) });
    renderResult(result);
    if (result.id != null) refreshLog();
  } catch (error) {
    showError($("#classify-error"), error);
  } finally {
    button.disabled = false;
  }
});

// --- upload a CSV file -------------------------------------------------------------------------

$("#upload-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const file = $("#csv-file").files[0];
  if (!file) return;
  const button = $("#csv-btn");
  button.disabled = true;
  showError($("#csv-error"), null);
  try {
    const form = new FormData();
    form.append("file", file);
    form.append("save", $("#csv-save").checked ? "true" : "false");
    const answer = await api("/api/classify/csv?with_csv=true", { method: "POST", body: form, headers: { "Idempotency-Key": idempotencyKey() } });
    const body = $("#csv-table tbody");
    body.replaceChildren(...answer.results.map((r) => el("tr", {},
      el("td", { text: r.line }), el("td", {}, el("span", { class: `badge ${r.urgency}`, text: r.urgency })),
      el("td", { text: r.labels.map(pretty).join(", ") }), el("td", { dir: "auto", text: visible(r.school || "") }),
      el("td", { dir: "auto", text: visible(r.text) }))));
    $("#csv-count").textContent = `${answer.count} complaints classified${$("#csv-save").checked ? " and saved" : ""}`;
    const link = $("#csv-download");
    if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([answer.csv], { type: "text/csv" }));  // written by the server
    link.download = file.name.replace(/\.csv$/i, "") + "-classified.csv";
    $("#csv-results").hidden = false;
    refreshLog();
  } catch (error) {
    showError($("#csv-error"), error);
  } finally {
    button.disabled = false;
  }
});

// --- the log -----------------------------------------------------------------------------------

function filterQuery() {
  const q = new URLSearchParams();
  for (const [id, key] of [["#f-label", "label"], ["#f-urgency", "urgency"], ["#f-status", "status"], ["#f-review", "needs_review"],
    ["#f-school", "school"], ["#f-district", "district"], ["#f-block", "block"]]) {
    const v = $(id).value.trim();
    if (v) q.set(key, v);
  }
  // whole days in the service's zone, sent as times with their offset
  if ($("#f-from").value) q.set("from", `${$("#f-from").value}T00:00:00${zoneOffset($("#f-from").value)}`);
  if ($("#f-to").value) { const d = nextDay($("#f-to").value); q.set("to", `${d}T00:00:00${zoneOffset(d)}`); }
  if ($("#f-queue").checked) { q.set("order", "review"); q.set("corrected", "false"); }
  return q;
}

function logItem(c) {
  const actions = (NEXT[c.status] || []).map(([to, name]) => {
    const b = el("button", { type: "button", class: "ghost", "data-to": to, text: name });
    b.addEventListener("click", () => changeStatus(c.id, to));
    return b;
  });
  const fix = el("button", { type: "button", class: "ghost", "data-correct": c.id, text: "correct labels" });
  const place = [c.school || "no school given", c.block, c.district].filter(Boolean).map(visible).join(", ");
  const facts = [`#${c.id}`, place, `received ${when(c.created_at)}`];
  if (c.incident_at) facts.push(`incident ${day(c.incident_at)}`);
  if (c.channel) facts.push(`by ${c.channel}`);
  if (c.reporter_phone) facts.push(`☎ ${c.reporter_phone}`);
  if (c.assignee) facts.push(`assigned to ${visible(c.assignee)}`);
  const predicted = c.labels.map((l) => el("span", { class: c.corrected_labels ? "chip predicted" : "chip", text: pretty(l), title: "predicted" }));
  const corrected = (c.corrected_labels || []).map((l) => el("span", { class: "chip corrected", text: pretty(l) }));
  const chips = el("div", { class: "chips" }, ...(c.corrected_labels ? [el("span", { class: "small muted", text: `corrected by ${visible(c.corrected_by || "an officer")}:` }), ...corrected, el("span", { class: "small muted", text: "model:" })] : []), ...predicted);
  const body = el("div", {}, el("p", { class: "text", dir: "auto", text: visible(c.text) }),
    el("div", { class: "meta", dir: "auto", text: facts.join(" · ") }), chips);
  if (c.notes) body.append(el("p", { class: "notes small", dir: "auto", text: visible(c.notes) }));
  const item = el("li", { "data-id": c.id, class: c.corrected_labels ? "is-corrected" : "" },
    el("div", { class: "urg" }, el("span", { class: `badge ${c.urgency}`, text: c.urgency }),
      ...(c.needs_review ? [el("span", { class: "badge review", text: "needs review", title: c.review_reasons.join("; ") })] : [])),
    body,
    el("div", { class: "status" }, el("span", { class: `state ${c.status}`, text: pretty(c.status) }), ...actions, fix));
  fix.addEventListener("click", () => toggleEditor(item, c));
  return item;
}

function toggleEditor(item, c) {
  const open = item.querySelector(".editor");
  if (open) { open.remove(); return; }
  const current = new Set(c.corrected_labels || c.labels);
  const boxes = state.labels.map((l) => el("label", { class: "check" },
    Object.assign(el("input", { type: "checkbox", value: l, "data-label": l }), { checked: current.has(l) }), pretty(l)));
  const assignee = el("input", { type: "text", class: "assignee", maxlength: "200", placeholder: "assign to", "aria-label": "assign to" });
  assignee.value = c.assignee || "";
  const notes = el("textarea", { class: "notes-input", rows: "2", maxlength: "5000", placeholder: "notes", "aria-label": "notes" });
  notes.value = c.notes || "";
  const save = el("button", { type: "button", class: "save-correction", text: "save" });
  const problem = el("p", { class: "error", role: "alert" });
  problem.hidden = true;
  const editor = el("div", { class: "editor" }, el("div", { class: "label-boxes" }, ...boxes), assignee, notes, save, problem);
  save.addEventListener("click", async () => {
    const labels = [...editor.querySelectorAll("input[data-label]:checked")].map((b) => b.value);
    const body = { assignee: assignee.value, notes: notes.value };
    const was = c.corrected_labels || c.labels;
    if (labels.length !== was.length || labels.some((l) => !was.includes(l))) body.labels = labels;
    try {
      await api(`/api/complaints/${c.id}`, { method: "PATCH", headers: officerHeaders({ "Content-Type": "application/json" }), body: JSON.stringify(body) });
      refreshLog();
      refreshAlerts();
    } catch (error) {
      showError(problem, error);
    }
  });
  item.append(editor);
}

async function refreshLog() {
  const q = filterQuery();
  $("#export").href = `/api/complaints.csv?${q}`;
  q.set("limit", PAGE_SIZE);
  if (state.cursors.length) q.set("cursor", state.cursors[state.cursors.length - 1]);
  try {
    const page = await api(`/api/complaints?${q}`);
    state.total = page.total;
    state.next = page.next_cursor;
    const list = $("#log-list");
    list.replaceChildren(...page.items.map(logItem));
    if (!page.items.length) list.append(el("li", { class: "empty", text: "no complaints match" }));
    const last = Math.min(state.offset + page.items.length, page.total);
    $("#page-info").textContent = page.total ? `${state.offset + 1}–${last} of ${page.total}` : "";
    $("#prev").disabled = state.cursors.length === 0;
    $("#next").disabled = !page.next_cursor;
    showError($("#log-error"), null);
  } catch (error) {
    showError($("#log-error"), error);
  }
  refreshHealth();
  refreshChart();
}

async function changeStatus(id, to) {
  try {
    await api(`/api/complaints/${id}`, { method: "PATCH", headers: officerHeaders({ "Content-Type": "application/json" }), body: JSON.stringify({ status: to }) });
    showError($("#log-error"), null);
  } catch (error) {
    showError($("#log-error"), error);
  }
  refreshLog();
}

for (const id of ["#f-label", "#f-urgency", "#f-status", "#f-review", "#f-from", "#f-to", "#f-queue"]) $(id).addEventListener("change", () => { resetPaging(); refreshLog(); });
let typing;
for (const id of ["#f-school", "#f-district", "#f-block"]) {
  $(id).addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => { resetPaging(); refreshLog(); }, 300); });
}
$("#filters").addEventListener("submit", (e) => e.preventDefault());
$("#prev").addEventListener("click", () => { state.cursors.pop(); state.offset = Math.max(0, state.offset - PAGE_SIZE); refreshLog(); });
$("#next").addEventListener("click", () => { if (!state.next) return; state.cursors.push(state.next); state.offset += PAGE_SIZE; refreshLog(); });

// --- bulk paste: one complaint per line ------------------------------------------------------

function bulkItems() {
  const shared = { district: $("#bulk-district").value.trim(), block: $("#bulk-block").value.trim(),
    incident_date: $("#bulk-date").value, channel: $("#bulk-channel").value };
  const items = [];
  for (const line of $("#bulk-text").value.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const cells = (line.includes("\t") ? line.split("\t") : line.split("|")).map((c) => c.trim());
    const [text, school, date, block, district] = cells;
    const item = { text };
    const fields = { school, incident_date: date || shared.incident_date, block: block || shared.block,
      district: district || shared.district, channel: shared.channel };
    for (const [k, v] of Object.entries(fields)) if (v) item[k] = v;
    items.push(item);
  }
  return items;
}

$("#bulk-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = $("#bulk-btn");
  button.disabled = true;
  showError($("#bulk-error"), null);
  $("#bulk-done").hidden = true;
  try {
    const items = bulkItems();
    if (!items.length) throw new Error("paste at least one complaint, one per line");
    let saved = 0;
    for (let start = 0; start < items.length; start += 256) {  // the API takes up to 256 at once
      const headers = { "Content-Type": "application/json", "Idempotency-Key": idempotencyKey() };
      const answer = await api("/api/classify/batch", { method: "POST", headers,
        body: JSON.stringify({ items: items.slice(start, start + 256), save: true }) });
      saved += answer.count;
    }
    $("#bulk-done").textContent = `${saved} complaints classified and saved`;
    $("#bulk-done").hidden = false;
    $("#bulk-text").value = "";
    refreshLog();
    refreshAlerts();
  } catch (error) {
    showError($("#bulk-error"), error);
  } finally {
    button.disabled = false;
  }
});

// --- outbreak alerts: a banner until an officer acknowledges them -----------------------------

async function refreshAlerts() {
  let page;
  try { page = await api("/api/alerts?status=open&limit=20"); } catch { return; }
  const banner = $("#alert-banner");
  banner.hidden = page.items.length === 0;
  $("#alert-list").replaceChildren(...page.items.map((a) => {
    const ack = el("button", { type: "button", "data-alert": a.id, text: "acknowledge" });
    ack.addEventListener("click", async () => {
      ack.disabled = true;
      try {
        await api(`/api/alerts/${a.id}`, { method: "PATCH", headers: officerHeaders({ "Content-Type": "application/json" }), body: JSON.stringify({ status: "acknowledged" }) });
      } catch (error) {
        showError($("#log-error"), error);
      }
      refreshAlerts();
    });
    const span = a.first_at === a.last_at ? when(a.first_at) : `${when(a.first_at)} – ${when(a.last_at)}`;
    return el("li", { "data-alert-id": a.id }, el("strong", { dir: "auto", text: visible(a.summary) }),
      el("span", { class: "small", text: ` · ${span} · complaints ${a.complaint_ids.map((i) => `#${i}`).join(", ")}` }), ack);
  }));
}

// --- chart: stacked bars of complaints per label per day, drawn as SVG ------------------------

function svg(tag, attrs) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

async function refreshChart() {
  const today = new Date();
  const from = new Date(today.getTime() - 29 * 86400000).toISOString().slice(0, 10);
  try { state.stats = await api(`/api/stats?from=${from}&to=${today.toISOString().slice(0, 10)}`); } catch { return; }
  drawChart(state.stats);
}

function drawChart(stats) {
  const W = Math.max(300, $("#chart").clientWidth || 900), H = W < 600 ? 180 : 220, left = 34, bottom = 22, top = 8;
  const n = stats.days.length;
  const totals = stats.days.map((_, d) => stats.labels.reduce((s, l) => s + stats.counts[l][d], 0));
  const peak = Math.max(1, ...totals);
  const step = (W - left) / n, scale = (H - bottom - top) / peak;
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "complaints per label per day" });
  for (const f of [0, 0.5, 1]) {
    const y = H - bottom - f * peak * scale;
    chart.append(svg("line", { x1: left, x2: W, y1: y, y2: y, stroke: "#e3e6eb" }));
    const t = svg("text", { x: left - 6, y: y + 4, "text-anchor": "end" });
    t.textContent = String(Math.round(f * peak));
    chart.append(t);
  }
  stats.days.forEach((day, d) => {
    let y = H - bottom;
    stats.labels.forEach((label, k) => {
      const h = stats.counts[label][d] * scale;
      if (h > 0) {
        const bar = svg("rect", { x: left + d * step + 1, y: y - h, width: Math.max(1, step - 2), height: h, fill: COLOURS[k % COLOURS.length] });
        const tip = svg("title", {});
        tip.textContent = `${day} · ${pretty(label)}: ${stats.counts[label][d]}`;
        bar.append(tip);
        chart.append(bar);
        y -= h;
      }
    });
    const every = W < 600 ? 7 : 5;
    if ((d % every === 0 && n - 1 - d >= every / 2) || d === n - 1) {
      const anchor = d === n - 1 ? "end" : d === 0 ? "start" : "middle";
      const t = svg("text", { x: left + d * step + (anchor === "end" ? step : anchor === "start" ? 0 : step / 2), y: H - 6, "text-anchor": anchor });
      t.textContent = day.slice(5);
      chart.append(t);
    }
  });
  $("#chart").replaceChildren(chart);
  $("#legend").replaceChildren(...stats.labels.map((l, k) => {
    const sw = el("span");
    sw.style.background = COLOURS[k % COLOURS.length];
    return el("li", {}, sw, `${pretty(l)} (${stats.totals[l]})`);
  }));
}

let resizing;
window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(() => state.stats && drawChart(state.stats), 150); });

// --- start -------------------------------------------------------------------------------------

async function refreshHealth() {
  try {
    const h = await api("/api/health");
    $("#health").textContent = `model ${h.model_version} · ${h.complaints_stored ?? "?"} complaints in the log`;
  } catch (error) {
    $("#health").textContent = `service unreachable: ${error.message}`;
  }
}

// accounts: who is signed in (nobody, with accounts on: the login page), their CSRF token, and logging out
async function startSession() {
  const session = await api("/api/session");
  state.accounts = session.accounts;
  if (!session.accounts) return true;
  if (!session.user) { window.location.assign("/login"); return false; }
  state.csrf = session.csrf_token;
  const who = session.user;
  $("#officer").value = who.name;
  $("#officer").disabled = true;  // changes are recorded as made by the signed-in account
  const logout = el("button", { type: "button", id: "logout", class: "ghost", text: "log out" });
  logout.addEventListener("click", async () => {
    try { await api("/api/logout", { method: "POST" }); } finally { window.location.assign("/login"); }
  });
  $("#account").replaceChildren(el("span", { dir: "auto", text: `${visible(who.name)} · ${who.role} · ${who.districts.map(visible).join(", ")}` }), logout);
  $("#account").hidden = false;
  return true;
}

async function start() {
  try {
    if (!(await startSession())) return;
  } catch (error) {
    showError($("#log-error"), error);
  }
  try {
    const settings = await api("/api/settings");
    state.zone = settings.timezone;
    $("#zone-note").textContent = `times in ${settings.timezone}; dates filter whole days there`;
    $("#bulk-channel").append(...settings.channels.map((c) => el("option", { value: c, text: c })));
  } catch (error) {
    showError($("#log-error"), error);
  }
  if (!state.accounts) $("#officer").value = localStorage.getItem("mealwatch-officer") || "";
  $("#officer").addEventListener("change", () => localStorage.setItem("mealwatch-officer", $("#officer").value.trim()));
  refreshAlerts();
  setInterval(refreshAlerts, 30000);
  try {
    const labels = await api("/api/labels");
    state.labels = labels.map((l) => l.label);
    $("#f-label").append(...labels.map((l) => el("option", { value: l.label, text: pretty(l.label), title: l.definition })));
  } catch (error) {
    showError($("#log-error"), error);
  }
  refreshLog();
}

start();
