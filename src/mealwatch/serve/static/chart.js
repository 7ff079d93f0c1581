// Complaints per label per day over the last 30 days: stacked bars drawn as SVG.
"use strict";

import { $, api, el, state } from "./common.js";
import { labelName, t } from "./i18n.js";

const COLOURS = ["#d62d20", "#f08c00", "#7b3fa0", "#1f77b4", "#2ca02c", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];

function svg(tag, attrs) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

export async function refreshChart() {
  const today = new Date();
  const from = new Date(today.getTime() - 29 * 86400000).toISOString().slice(0, 10);
  try { state.stats = await api(`/api/stats?from=${from}&to=${today.toISOString().slice(0, 10)}`); } catch { return; }
  drawChart(state.stats);
}

export function drawChart(stats) {
  if (!stats) return;
  const W = Math.max(300, $("#chart").clientWidth || 900), H = W < 600 ? 180 : 220, left = 34, bottom = 22, top = 8;
  const n = stats.days.length;
  const totals = stats.days.map((_, d) => stats.labels.reduce((s, l) => s + stats.counts[l][d], 0));
  const peak = Math.max(1, ...totals);
  const step = (W - left) / n, scale = (H - bottom - top) / peak;
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("chart.aria") });
  for (const f of [0, 0.5, 1]) {
    const y = H - bottom - f * peak * scale;
    chart.append(svg("line", { x1: left, x2: W, y1: y, y2: y, stroke: "#e3e6eb" }));
    const tick = svg("text", { x: left - 6, y: y + 4, "text-anchor": "end" });
    tick.textContent = String(Math.round(f * peak));
    chart.append(tick);
  }
  stats.days.forEach((day, d) => {
    let y = H - bottom;
    stats.labels.forEach((label, k) => {
      const h = stats.counts[label][d] * scale;
      if (h > 0) {
        const bar = svg("rect", { x: left + d * step + 1, y: y - h, width: Math.max(1, step - 2), height: h, fill: COLOURS[k % COLOURS.length] });
        const tip = svg("title", {});
        tip.textContent = `${day} · ${labelName(label)}: ${stats.counts[label][d]}`;
        bar.append(tip);
        chart.append(bar);
        y -= h;
      }
    });
    const every = W < 600 ? 7 : 5;
    if ((d % every === 0 && n - 1 - d >= every / 2) || d === n - 1) {
      const anchor = d === n - 1 ? "end" : d === 0 ? "start" : "middle";
      const tick = svg("text", { x: left + d * step + (anchor === "end" ? step : anchor === "start" ? 0 : step / 2), y: H - 6, "text-anchor": anchor });
      tick.textContent = `${day.slice(8, 10)}/${day.slice(5, 7)}`;
      chart.append(tick);
    }
  });
  $("#chart").replaceChildren(chart);
  $("#legend").replaceChildren(...stats.labels.map((l, k) => {
    const sw = el("span");
    sw.style.background = COLOURS[k % COLOURS.length];
    return el("li", {}, sw, `${labelName(l)} (${stats.totals[l]})`);
  }));
}
