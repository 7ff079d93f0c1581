// mealwatch complaint triage page: plain JS, no libraries; every text from the server goes in with textContent.
"use strict";

const $ = (sel) => document.querySelector(sel);
const PAGE_SIZE = 25;
const NEXT = { new: [["in_progress", "start work"]], in_progress: [["resolved", "resolve"], ["new", "back to new"]],
  resolved: [["in_progress", "reopen"]] };
const COLOURS = ["#d62d20", "#f08c00", "#7b3fa0", "#1f77b4", "#2ca02c", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
const state = { labels: [], offset: 0, total: 0 };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

async function api(path, options = {}) {
  const response = await fetch(path, options);
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
function when(iso) { return iso.slice(0, 16).replace("T", " ") + " UTC"; }

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
    const body = { text: $("#text").value, save: $("#save").checked };
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
  for (const [id, key] of [["#f-label", "label"], ["#f-urgency", "urgency"], ["#f-status", "status"], ["#f-review", "needs_review"], ["#f-school", "school"]]) {
    const v = $(id).value.trim();
    if (v) q.set(key, v);
  }
  return q;
}

function logItem(c) {
  const actions = (NEXT[c.status] || []).map(([to, name]) => {
    const b = el("button", { type: "button", class: "ghost", "data-to": to, text: name });
    b.addEventListener("click", () => changeStatus(c.id, to));
    return b;
  });
  const meta = `#${c.id} · ${c.school ? visible(c.school) : "no school given"} · ${when(c.created_at)}`;
  return el("li", { "data-id": c.id },
    el("div", { class: "urg" }, el("span", { class: `badge ${c.urgency}`, text: c.urgency }),
      ...(c.needs_review ? [el("span", { class: "badge review", text: "needs review", title: c.review_reasons.join("; ") })] : [])),
    el("div", {}, el("p", { class: "text", dir: "auto", text: visible(c.text) }), el("div", { class: "meta", dir: "auto", text: meta }),
      el("div", { class: "chips" }, ...c.labels.map((l) => el("span", { class: "chip", text: pretty(l) })))),
    el("div", { class: "status" }, el("span", { class: `state ${c.status}`, text: pretty(c.status) }), ...actions));
}

async function refreshLog() {
  const q = filterQuery();
  $("#export").href = `/api/complaints.csv?${q}`;
  q.set("limit", PAGE_SIZE);
  q.set("offset", state.offset);
  try {
    const page = await api(`/api/complaints?${q}`);
    state.total = page.total;
    const list = $("#log-list");
    list.replaceChildren(...page.items.map(logItem));
    if (!page.items.length) list.append(el("li", { class: "empty", text: "no complaints match" }));
    const last = Math.min(page.offset + page.items.length, page.total);
    $("#page-info").textContent = page.total ? `${page.offset + 1}–${last} of ${page.total}` : "";
    $("#prev").disabled = page.offset === 0;
    $("#next").disabled = last >= page.total;
    showError($("#log-error"), null);
  } catch (error) {
    showError($("#log-error"), error);
  }
  refreshHealth();
  refreshChart();
}

async function changeStatus(id, to) {
  try {
    await api(`/api/complaints/${id}`, { method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ status: to }) });
    showError($("#log-error"), null);
  } catch (error) {
    showError($("#log-error"), error);
  }
  refreshLog();
}

for (const id of ["#f-label", "#f-urgency", "#f-status", "#f-review"]) $(id).addEventListener("change", () => { state.offset = 0; refreshLog(); });
let typing;
$("#f-school").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => { state.offset = 0; refreshLog(); }, 300); });
$("#filters").addEventListener("submit", (e) => e.preventDefault());
$("#prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE_SIZE); refreshLog(); });
$("#next").addEventListener("click", () => { state.offset += PAGE_SIZE; refreshLog(); });

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
    $("#health").textContent = `model ${h.model_version} · ${h.complaints_stored} complaints in the log`;
  } catch (error) {
    $("#health").textContent = `service unreachable: ${error.message}`;
  }
}

async function start() {
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
