// cardtable web: the connection shared by every play page (no game rules here).
//
// The seat token travels in the URL fragment (#token=...), which the browser
// never sends to the server; a reload keeps it, so the view comes back.
// The connection reconnects by itself (backoff up to 5 s) and re-joins; the
// server then sends the full current view.
"use strict";

const CT = (() => {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  const room = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
  let ws = null, backoff = 250, refs = 0, onState = () => {}, onError = () => {}, onStatus = () => {};
  const pending = new Map();

  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${proto}://${location.host}/ws`);
    ws.onopen = () => {
      backoff = 250;
      const msg = { type: "join", room };
      if (token) msg.token = token;
      ws.send(JSON.stringify(msg));
      onStatus("online");
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "state") onState(msg);
      else if (msg.type === "error") {
        if (msg.ref !== undefined && pending.has(msg.ref)) { pending.get(msg.ref)(msg); pending.delete(msg.ref); }
        onError(msg);
      } else if (msg.type === "ack" && pending.has(msg.ref)) { pending.get(msg.ref)(null); pending.delete(msg.ref); }
    };
    ws.onclose = () => {
      onStatus("offline");
      for (const cb of pending.values()) cb({ code: "offline", message: "connection lost; try again" });
      pending.clear();
      setTimeout(connect, backoff);
      backoff = Math.min(5000, backoff * 2);
    };
  }

  function send(msg) {
    return new Promise((resolve) => {
      if (!ws || ws.readyState !== WebSocket.OPEN) {
        resolve({ code: "offline", message: "not connected; reconnecting…" });
        return;
      }
      const ref = ++refs;
      pending.set(ref, resolve);
      ws.send(JSON.stringify({ ...msg, ref }));
    });
  }

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  const RANKS = { 1: "A", 11: "J", 12: "Q", 13: "K" };
  const rankName = (r) => RANKS[r] || String(r);

  function card(rank, suit, extra = {}) {
    const red = suit === "♦" || suit === "♥";
    const cls = ["card", red ? "red" : "", extra.class || ""].join(" ").trim();
    const attrs = { ...extra, class: cls, "data-rank": rank, title: rankName(rank) + suit };
    return el("div", attrs, el("span", { class: "rank", text: rankName(rank) }), el("span", { class: "suit", text: suit }));
  }

  async function sha256hex(text) {
    if (!window.crypto || !crypto.subtle) return null;  // only in secure contexts (https, localhost)
    const buf = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(buf)).map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  // Show an error in the page's #err banner for 6 s; an empty text hides it.
  function showError(text) {
    const e = document.getElementById("err");
    e.textContent = text;
    e.classList.toggle("hidden", !text);
    if (text) setTimeout(() => { if (e.textContent === text) e.classList.add("hidden"); }, 6000);
  }

  return {
    token, room, connect, send, el, card, rankName, sha256hex, showError,
    set onState(f) { onState = f; }, set onError(f) { onError = f; }, set onStatus(f) { onStatus = f; },
  };
})();
