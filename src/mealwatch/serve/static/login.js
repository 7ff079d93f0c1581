// mealwatch login page: posts the name and password, then opens the triage page (the session is a cookie); speaks
// the browser's language (or the one chosen here).
"use strict";

import { applyTexts, language, setLanguage, t } from "./i18n.js";

const form = document.querySelector("#login-form");
const problem = document.querySelector("#login-error");

function speak(lang) {
  setLanguage(lang);
  applyTexts();
  for (const b of document.querySelectorAll("button.lang")) b.classList.toggle("on", b.dataset.lang === language());
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = document.querySelector("#login-btn");
  button.disabled = true;
  problem.hidden = true;
  try {
    const response = await fetch("/api/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: document.querySelector("#name").value, password: document.querySelector("#password").value }),
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      const wait = response.headers.get("Retry-After");
      const said = response.status === 401 ? t("login.wrong") : (body && body.error) || `${response.status} ${response.statusText}`;
      throw new Error(said + (wait ? t("login.wait", { s: wait }) : ""));
    }
    window.location.assign("/");
  } catch (error) {
    problem.textContent = String(error.message || error);
    problem.hidden = false;
    document.querySelector("#password").value = "";
  } finally {
    button.disabled = false;
  }
});

for (const b of document.querySelectorAll("button.lang")) b.addEventListener("click", () => speak(b.dataset.lang));
fetch("/api/preferences").then((r) => r.json()).then((p) => speak(p.language)).catch(() => speak("en"));
// already signed in (or no accounts): straight to the page
fetch("/api/session").then((r) => r.json()).then((s) => { if (!s.accounts || s.user) window.location.assign("/"); }).catch(() => {});
