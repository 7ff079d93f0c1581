// mealwatch login page: posts the name and password, then opens the triage page (the session is a cookie).
"use strict";

const form = document.querySelector("#login-form");
const problem = document.querySelector("#login-error");

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
      throw new Error((body && body.error) || `${response.status} ${response.statusText}` + (wait ? ` (wait ${wait} s)` : ""));
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

// already signed in (or no accounts): straight to the page
fetch("/api/session").then((r) => r.json()).then((s) => { if (!s.accounts || s.user) window.location.assign("/"); }).catch(() => {});
