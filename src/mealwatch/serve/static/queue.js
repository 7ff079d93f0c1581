// The triage queue: the most severe complaints first (a death or a hospital admission, the urgency, the children
// named), each card saying why it needs a person in plain words, with its actions; filters and paging by cursor.
"use strict";

import { $, api, el, everyDistrict, incident, nextDay, showError, state, visible, when, zoneOffset } from "./common.js";
import { editor, mayChange, statusButtons } from "./edit.js";
import { channelName, complaintLanguage, labelName, plainReason, t } from "./i18n.js";

const PAGE_SIZE = 25;
//: the triage key's parts as the log gives them (mealwatch/severity.py): the level of care, the children named
export const grave = (c) => c.severity_level === "hospital" || c.severity_level === "death";
export const children = (c) => c.children || null;
let opener = () => {};
let afterChange = () => {};

export function onOpen(open) { opener = open; }
export function onChange(refresh) { afterChange = refresh; }
export function resetPaging() { state.offset = 0; state.cursors = []; }

export function filterQuery() {
  const q = new URLSearchParams();
  for (const [id, key] of [["#f-label", "label"], ["#f-urgency", "urgency"], ["#f-status", "status"], ["#f-review", "needs_review"],
    ["#f-school", "school"], ["#f-district", "district"], ["#f-block", "block"]]) {
    const v = $(id).value.trim();
    if (v) q.set(key, v);
  }
  // whole days in the service's zone, of the incident date (else the arrival), sent as times with their offset
  if ($("#f-from").value || $("#f-to").value) q.set("dates", "incident");
  if ($("#f-from").value) q.set("from", `${$("#f-from").value}T00:00:00${zoneOffset($("#f-from").value)}`);
  if ($("#f-to").value) { const d = nextDay($("#f-to").value); q.set("to", `${d}T00:00:00${zoneOffset(d)}`); }
  if ($("#f-unassigned").checked) q.set("unassigned", "true");
  if ($("#f-queue").checked) { q.set("order", "review"); q.set("corrected", "false"); } else q.set("order", "triage");
  return q;
}

export function badges(c) {
  const out = [el("span", { class: `badge ${c.urgency}`, text: t(`urgency.${c.urgency}`) })];
  // why it stands where it does in the queue, in an officer's words: what happened to the children, how many
  if (c.severity_level && c.severity_level !== "none") {
    out.push(el("span", { class: grave(c) ? "badge grave" : "badge ill", text: t(`level.${c.severity_level}`) }));
  }
  const kids = children(c);
  if (kids) out.push(el("span", { class: "badge kids", text: kids === "all" ? t("card.allChildren") : t("card.children", { n: kids }) }));
  if (c.needs_review) out.push(el("span", { class: "badge review", text: t("card.needsReview") }));
  return out;
}

export function facts(c) {
  const place = [c.school || t("card.noSchool"), c.block, c.district || t("card.noDistrict")].filter(Boolean).map(visible).join(", ");
  const out = [`#${c.id}`, place, t("card.received", { when: when(c.created_at) })];
  if (c.incident_at) out.push(t("card.incident", { when: incident(c.incident_at) }));
  if (c.channel) out.push(t("card.by", { channel: channelName(c.channel) }));
  if (complaintLanguage(c.language)) out.push(complaintLanguage(c.language));
  if (c.reporter_phone) out.push(`☎ ${c.reporter_phone}`);
  if (c.assignee) out.push(t("card.assigned", { name: visible(c.assignee) }));
  return out.join(" · ");
}

export function chips(c) {
  const predicted = c.labels.map((l) => el("span", { class: c.corrected_labels ? "chip predicted" : "chip", text: labelName(l) }));
  const corrected = (c.corrected_labels || []).map((l) => el("span", { class: "chip corrected", text: labelName(l) }));
  const by = c.corrected_by ? visible(c.corrected_by) : t("card.officer");
  const lead = c.corrected_labels ? [el("span", { class: "small muted", text: t("card.correctedBy", { name: by }) }), ...corrected,
    el("span", { class: "small muted", text: t("card.model") })] : [];
  return el("div", { class: "chips" }, ...lead, ...predicted);
}

export function reasons(c) {
  if (!c.needs_review || !c.review_reasons.length) return null;
  return el("ul", { class: "reasons" }, ...c.review_reasons.map((r) => el("li", { text: plainReason(r) })));
}

function card(c) {
  const open = el("button", { type: "button", class: "ghost open", "data-open": c.id, text: t("card.open") });
  open.addEventListener("click", () => opener(c.id));
  const fix = el("button", { type: "button", class: "ghost", "data-correct": c.id, text: t("card.correct") });
  const body = el("div", { class: "body" }, el("p", { class: "text", dir: "auto", text: visible(c.text) }),
    el("div", { class: "meta", dir: "auto", text: facts(c) }), reasons(c), chips(c));
  if (c.notes) body.append(el("p", { class: "notes small", dir: "auto", text: visible(c.notes) }));
  const moves = statusButtons(c, afterChange);
  const item = el("li", { "data-id": c.id, class: [c.corrected_labels ? "is-corrected" : "", grave(c) ? "is-grave" : ""].join(" ").trim() },
    el("div", { class: "urg" }, ...badges(c)), body,
    el("div", { class: "status" }, el("span", { class: `state ${c.status}`, text: t(`status.${c.status}`) }), open,
      ...moves, ...(mayChange() ? [fix] : [])));
  fix.addEventListener("click", () => {
    const shown = item.querySelector(".editor");
    if (shown) { shown.remove(); return; }
    item.append(editor(c, (changed) => { afterChange(changed.id); }));
  });
  return item;
}

export async function refreshLog(highlight = null) {
  const q = filterQuery();
  const exported = new URLSearchParams(q);
  exported.delete("order");
  $("#export").href = `/api/complaints.csv?${exported}`;
  $("#order-note").textContent = t($("#f-queue").checked ? "queue.orderReview" : "queue.orderTriage");
  const on = [...new URLSearchParams(exported).keys()].filter((k) => !["corrected", "dates"].includes(k)).length;
  $("#filter-count").textContent = on ? t("queue.nFilters", { n: on }) : "";
  $("#f-unassigned-box").hidden = !everyDistrict();
  q.set("limit", PAGE_SIZE);
  if (state.cursors.length) q.set("cursor", state.cursors[state.cursors.length - 1]);
  try {
    const page = await api(`/api/complaints?${q}`);
    state.total = page.total;
    state.next = page.next_cursor;
    const list = $("#log-list");
    list.replaceChildren(...page.items.map(card));
    if (!page.items.length) list.append(el("li", { class: "empty", text: t("queue.empty") }));
    const last = Math.min(state.offset + page.items.length, page.total);
    $("#page-info").textContent = page.total ? t("queue.range", { a: state.offset + 1, b: last, n: page.total }) : "";
    $("#prev").disabled = state.cursors.length === 0;
    $("#next").disabled = !page.next_cursor;
    showError($("#log-error"), null);
    if (highlight != null) {
      const item = list.querySelector(`li[data-id='${highlight}']`);
      if (item) { item.classList.add("just-saved"); item.scrollIntoView({ block: "nearest" }); }
    }
  } catch (error) {
    showError($("#log-error"), error);
  }
}

export function wireFilters(refresh) {
  for (const id of ["#f-label", "#f-urgency", "#f-status", "#f-review", "#f-from", "#f-to", "#f-queue", "#f-unassigned"]) {
    $(id).addEventListener("change", () => { resetPaging(); refresh(); });
  }
  let typing;
  for (const id of ["#f-school", "#f-district", "#f-block"]) {
    $(id).addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => { resetPaging(); refresh(); }, 300); });
  }
  $("#filters").addEventListener("submit", (e) => e.preventDefault());
  $("#prev").addEventListener("click", () => { state.cursors.pop(); state.offset = Math.max(0, state.offset - PAGE_SIZE); refresh(); });
  $("#next").addEventListener("click", () => { if (!state.next) return; state.cursors.push(state.next); state.offset += PAGE_SIZE; refresh(); });
}
