// Outbreak alerts: a banner until an officer acknowledges them; each opens its complaints.
"use strict";

import { $, api, el, incident, jsonOptions, officerHeaders, showError, visible } from "./common.js";
import { mayChange } from "./edit.js";
import { TEXTS, language, t } from "./i18n.js";

// an alert of a default rule in the page's language (the server writes English); any other as the server wrote it
export function alertSummary(a) {
  const key = `alert.${a.rule}`;
  if (!(key in TEXTS[language()])) return visible(a.summary);
  const place = a.rule === "block_spread" ? a.block : a.school || a.block || t("alert.unnamed");
  return t(key, { place: visible(place || ""), n: a.complaint_ids.length });
}

let opener = () => {};
export function onOpen(open) { opener = open; }

export async function refreshAlerts() {
  let page;
  try { page = await api("/api/alerts?status=open&limit=20"); } catch { return; }
  $("#alert-banner").hidden = page.items.length === 0;
  $("#alert-list").replaceChildren(...page.items.map((a) => {
    const n = a.complaint_ids.length;
    const open = el("button", { type: "button", class: "open-alert", "data-open-alert": a.id,
      text: n === 1 ? t("alerts.open1") : t("alerts.open", { n }) });
    open.addEventListener("click", () => opener(a));
    const ack = el("button", { type: "button", "data-alert": a.id, text: t("alerts.ack") });
    ack.hidden = !mayChange();
    ack.addEventListener("click", async () => {
      ack.disabled = true;
      try {
        await api(`/api/alerts/${a.id}`, jsonOptions("PATCH", { status: "acknowledged" }, officerHeaders()));
      } catch (error) {
        showError($("#log-error"), error);
      }
      refreshAlerts();
    });
    // incident times (else arrival): a day given as a day shows as that day
    const span = a.first_at === a.last_at ? incident(a.first_at) : `${incident(a.first_at)} – ${incident(a.last_at)}`;
    return el("li", { "data-alert-id": a.id }, el("strong", { dir: "auto", text: alertSummary(a) }),
      el("span", { class: "small", text: ` · ${span} · ${a.complaint_ids.map((i) => `#${i}`).join(", ")}` }), open, ack);
  }));
}
