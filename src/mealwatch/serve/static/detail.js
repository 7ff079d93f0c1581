// One complaint in full: its text, every field of its record (the officer's own too), how sure the model was of each
// label, why (each word's share of the decision), its history, and the changes an officer makes; or an alert's
// complaints, each opening in turn. A dialog over the page (the whole screen on a phone).
"use strict";

import { alertSummary } from "./alerts.js";
import { $, api, el, incident, jsonOptions, percent, state, visible, when } from "./common.js";
import { editor, mayChange, statusButtons } from "./edit.js";
import { channelName, complaintLanguage, labelName, t } from "./i18n.js";
import { badges, chips, facts, reasons } from "./queue.js";
import { renderWhy } from "./why.js";

let afterChange = () => {};
export function onChange(refresh) { afterChange = refresh; }

function dialog() { return $("#detail"); }

function show(title) {
  $("#detail-title").textContent = title;
  if (!dialog().open) dialog().showModal();
  return $("#detail-body");
}

export function close() { if (dialog().open) dialog().close(); }

function recordTable(c) {
  const rows = [["school", c.school], ["udise", c.udise], ["district", c.district], ["block", c.block],
    ["incident_at", c.incident_at ? incident(c.incident_at) : null], ["channel", c.channel ? channelName(c.channel) : null],
    ["reporter_phone", c.reporter_phone], ["language", complaintLanguage(c.language)], ["created_at", when(c.created_at)], ["status", t(`status.${c.status}`)],
    ["assignee", c.assignee], ["notes", c.notes], ["model_version", c.model_version]];
  const table = el("table", { class: "record" });
  for (const [field, value] of rows) {
    if (value == null || value === "") continue;
    table.append(el("tr", {}, el("th", { text: t(`field.${field}`) }), el("td", { dir: "auto", text: visible(value) })));
  }
  const extra = Object.entries(c.extra || {});
  return [el("h3", { text: t("detail.record") }), table,
    ...(extra.length ? [el("h3", { text: t("detail.extra") }), el("table", { class: "record extra" },
      ...extra.map(([k, v]) => el("tr", {}, el("th", { dir: "auto", text: visible(k) }), el("td", { dir: "auto", text: visible(v) }))))] : [])];
}

function probabilityBars(c) {
  const shown = new Set(c.corrected_labels || c.labels);
  const entries = Object.entries(c.probabilities).sort((a, b) => b[1] - a[1]);
  return [el("h3", { text: t("detail.probabilities") }), el("ul", { class: "bars" }, ...entries.map(([label, p]) => {
    const fill = el("div", { class: "fill" });
    fill.style.width = `${(p * 100).toFixed(1)}%`;
    return el("li", { class: shown.has(label) ? "on" : "", "data-label": label }, el("span", { text: labelName(label) }),
      el("div", { class: "track" }, fill), el("span", { class: "num", text: percent(p) }));
  }))];
}

function historyList(changes) {
  const list = el("ol", { class: "history" });
  if (!changes.length) list.append(el("li", { class: "muted", text: t("detail.noHistory") }));
  const say = (field, v) => (v == null ? "—" : field === "labels" ? v.map(labelName).join(", ")
    : field === "status" ? t(`status.${v}`) : visible(v));
  for (const ch of changes) {
    list.append(el("li", {}, el("span", { dir: "auto", text: t("detail.change", { field: t(`field.${ch.field}`),
      old: say(ch.field, ch.old), new: say(ch.field, ch.new) }) }),
    el("span", { class: "muted small", text: ` · ${t("detail.byAt", { by: ch.by ? visible(ch.by) : t("detail.someone"), at: when(ch.at) })}` })));
  }
  return [el("h3", { text: t("detail.history") }), list];
}

// the complaint ``id`` in the dialog; its "why" is asked of the model serving now (no save)
export async function openComplaint(id, notice = null) {
  const body = show(t("detail.title", { id }));
  body.replaceChildren(el("p", { class: "muted", text: "…" }));
  let c, changes;
  try {
    [c, changes] = await Promise.all([api(`/api/complaints/${id}`), api(`/api/complaints/${id}/history`)]);
  } catch (error) {
    body.replaceChildren(el("p", { class: "error", text: error.message }));
    return;
  }
  // after a change: the queue again, then this complaint again, with what was kept said at its top
  const again = async () => {
    await afterChange(c.id);
    openComplaint(id, $("#log-done").hidden ? null : $("#log-done").textContent);
  };
  const why = el("div", { class: "why detail-why" }, el("p", { class: "muted small", text: t("why.loading") }));
  const actions = el("div", { class: "detail-actions" }, el("span", { class: `state ${c.status}`, text: t(`status.${c.status}`) }),
    ...statusButtons(c, again));
  body.replaceChildren(...[
    notice ? el("p", { class: "done", role: "status", text: notice }) : null,
    el("div", { class: "urg" }, ...badges(c)),
    el("p", { class: "text big", dir: "auto", text: visible(c.text) }),
    el("div", { class: "meta", dir: "auto", text: facts(c) }),
    reasons(c), chips(c), why, ...probabilityBars(c), actions,
    ...(mayChange() ? [editor(c, again)] : []),
    ...recordTable(c), ...historyList(changes)].filter(Boolean));
  try {
    const answer = await api("/api/classify", jsonOptions("POST", { text: c.text, explain: "why" }));
    renderWhy(why, answer, { savedModel: c.model_version, currentModel: answer.model_version });
  } catch (error) {
    why.replaceChildren(el("p", { class: "error", text: error.message }));
  }
}

// an alert's complaints in the dialog, each a card that opens in full
export async function openAlert(alert) {
  const body = show(t("detail.alertTitle", { id: alert.id }));
  body.replaceChildren(el("p", { dir: "auto", class: "text", text: alertSummary(alert) }));
  const list = el("ol", { class: "log" });
  body.append(list);
  for (const id of alert.complaint_ids) {
    try {
      const c = await api(`/api/complaints/${id}`);
      const open = el("button", { type: "button", class: "ghost", "data-open": id, text: t("card.open") });
      open.addEventListener("click", () => openComplaint(id));
      list.append(el("li", { "data-id": id }, el("div", { class: "urg" }, ...badges(c)),
        el("div", { class: "body" }, el("p", { class: "text", dir: "auto", text: visible(c.text) }),
          el("div", { class: "meta", dir: "auto", text: facts(c) })), el("div", { class: "status" }, open)));
    } catch (error) {
      list.append(el("li", { class: "error", text: `#${id}: ${error.message}` }));
    }
  }
}

export function wireDetail() {
  $("#detail-close").addEventListener("click", close);
  dialog().addEventListener("click", (e) => { if (e.target === dialog()) close(); });  // a click beside it
  state.detailOpen = () => dialog().open;
}
