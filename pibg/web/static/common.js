"use strict";
// Shared by the pages: the token (kept in this browser only) and a POST helper.
const pibg = {
  token() { return localStorage.getItem("pibg-token") || ""; },
  setToken(t) { localStorage.setItem("pibg-token", t); },
  async post(path, body) {
    const res = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Pibg-Token": pibg.token() },
      body: JSON.stringify(body || {}),
    });
    let data = {};
    try { data = await res.json(); } catch (e) { data = { error: res.statusText }; }
    if (!res.ok) throw new Error(data.error || res.statusText);
    return data;
  },
  el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  },
  tokenInput(input) {
    if (!input) return;
    input.value = pibg.token();
    input.addEventListener("input", () => pibg.setToken(input.value));
  },
};
