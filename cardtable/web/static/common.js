// cardtable web: the connection shared by every play page (no game rules here).
//
// Credentials travel in the URL fragment, which the browser never sends to the
// server: an invite link carries a one-time claim code (#claim=...); the first
// join exchanges it for the seat's own token, which only this browser then knows:
// the page replaces the fragment with #token=... (so a reload keeps the seat) and
// remembers the token for that invite in localStorage (so reopening the invite
// link in this browser still works). A lobby seat arrives as #token=... directly.
// The connection reconnects by itself (backoff up to 5 s) and re-joins; the
// server then sends the full current view. An invite or seat link the server
// refuses (bad_claim: used up or replaced; bad_token) is not retried: the page
// gets a "ct-refused" event (invite.js says why and offers CT.watch(), which
// joins as a spectator).
"use strict";

const CT = (() => {
  const params = new URLSearchParams(location.hash.slice(1));
  let claim = params.get("claim");
  const store = (() => { try { return window.localStorage; } catch (e) { return null; } })();
  let token = params.get("token") || (claim && store ? store.getItem("ct-claim:" + claim) : null);
  const room = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
  let ws = null, backoff = 250, refs = 0, onState = () => {}, onError = () => {}, onStatus = () => {};
  let joined = false, refused = false;  // refused: the credential was turned down; wait for watch()
  const pending = new Map();

  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${proto}://${location.host}/ws`);
    ws.onopen = () => {
      backoff = 250;
      joined = false;
      if (refused) return;  // (a connection opened before the refusal) wait for watch()
      const msg = { type: "join", room };
      if (token) msg.token = token;
      else if (claim) msg.claim = claim;
      ws.send(JSON.stringify(msg));
      onStatus("online");
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "welcome") joined = true;
      if (msg.type === "error" && !joined && (msg.code === "bad_claim" || msg.code === "bad_token")) {
        refused = true;
        document.dispatchEvent(new CustomEvent("ct-refused", { detail: { code: msg.code, message: msg.message } }));
      }
      if (msg.type === "welcome" && msg.token) {
        token = msg.token;
        if (claim && store) { try { store.setItem("ct-claim:" + claim, token); } catch (e) { /* full: the URL keeps it */ } }
        history.replaceState(null, "", `${location.pathname}${location.search}#token=${token}`);
      }
      if (msg.type === "state") onState(msg);
      else if (msg.type === "error") {
        if (msg.ref !== undefined && pending.has(msg.ref)) { pending.get(msg.ref)(msg); pending.delete(msg.ref); }
        onError(msg);
      } else if (msg.type === "ack" && pending.has(msg.ref)) { pending.get(msg.ref)(null); pending.delete(msg.ref); }
    };
    ws.onclose = () => {
      if (refused) return;  // nothing to rejoin with until watch()
      onStatus("offline");
      for (const cb of pending.values()) cb({ code: "offline", message: "connection lost; try again" });
      pending.clear();
      setTimeout(connect, backoff);
      backoff = Math.min(5000, backoff * 2);
    };
  }

  // Drop a refused credential and join as a spectator (on this connection, which may retry
  // its join, or on a new one); the address loses its fragment, so a reload watches too.
  function watch() {
    claim = null;
    token = null;
    refused = false;
    history.replaceState(null, "", `${location.pathname}${location.search}`);
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "join", room }));
    else if (!ws || ws.readyState === WebSocket.CLOSED) connect();
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

  // A card face; extra.tag "button" makes it a real button (focusable, Enter/Space click it).
  function card(rank, suit, extra = {}) {
    const { tag = "div", ...rest } = extra;
    const red = suit === "♦" || suit === "♥";
    const cls = ["card", red ? "red" : "", rest.class || ""].join(" ").trim();
    const attrs = { title: rankName(rank) + suit, ...rest, class: cls, "data-rank": rank };
    if (tag === "button") attrs.type = "button";
    return el(tag, attrs, el("span", { class: "rank", "aria-hidden": "true", text: rankName(rank) }),
      el("span", { class: "suit", "aria-hidden": "true", text: suit }));
  }

  // The forms a card is typed in, as the terminal takes them (cardtable/goofspiel/cards.py):
  // K, 13, K♠, ks, 10, T, a, 1. Returns {rank} or {error}.
  const NAME_RANKS = { A: 1, J: 11, Q: 12, K: 13, T: 10 };
  const SUIT_LETTERS = { s: "♠", c: "♣", h: "♥", d: "♦" };
  const SUIT_ALIASES = [["♠️", "♠"], ["♣️", "♣"], ["♥️", "♥"], ["♦️", "♦"], ["♡", "♥"], ["♢", "♦"], ["♤", "♤"], ["♧", "♧"]];
  function wholeNumber(t) {
    if (!/^[0-9]+$/.test(t)) return null;
    const sig = t.replace(/^0+/, "");
    return sig.length > 3 ? null : Number(sig || "0");
  }
  function splitSuit(text) {
    const t = text.trim();
    for (const [alias, suit] of SUIT_ALIASES) if (t.endsWith(alias)) return [t.slice(0, -alias.length).trim(), suit];
    if (t && "♠♣♥♦♤♧".includes(t[t.length - 1])) return [t.slice(0, -1).trim(), t[t.length - 1]];
    const last = t[t.length - 1] || "";
    if (t.length >= 2 && SUIT_LETTERS[last.toLowerCase()]) {
      const head = t.slice(0, -1).trim();
      if (head && (wholeNumber(head) !== null || head.toUpperCase() in NAME_RANKS)) return [head, SUIT_LETTERS[last.toLowerCase()]];
    }
    return [t, null];
  }
  function parseCard(text, cards, suit = null) {
    const [head, written] = splitSuit(text);
    const t = (head || text).trim().toUpperCase(), n = wholeNumber(t);
    let rank;
    if (t in NAME_RANKS) rank = NAME_RANKS[t];
    else if (n !== null) rank = n;
    else return { error: `${text.trim()} is not a card: type a rank from A to ${rankName(cards)}` + (cards >= 10 ? " (10 or T)" : "") };
    if (rank < 1 || rank > cards) return { error: `${text.trim()} is not a card of this game: ranks run from A to ${rankName(cards)}` };
    if (suit && written && written !== suit) return { error: `${text.trim()} is not your suit: you bid with ${suit}` };
    return { rank };
  }
  // A typed bid of `k` cards ("7 9", "7,9", "7+9"): {cards} or {error}, checked against the hand.
  function parseBid(text, k, cards, suit, hand) {
    const tokens = text.replace(/[,+]/g, " ").split(/\s+/).filter(Boolean);
    if (!tokens.length) return { error: "type a card from your hand" };
    if (tokens.length !== k) return { error: `bid exactly ${k} card(s), you typed ${tokens.length}` };
    const out = [];
    for (const tok of tokens) {
      const got = parseCard(tok, cards, suit);
      if (got.error) return got;
      if (!hand.includes(got.rank)) return { error: `${rankName(got.rank)}${suit} is not in your hand (already spent)` };
      if (out.includes(got.rank)) return { error: "the same card twice" };
      out.push(got.rank);
    }
    return { cards: out.sort((a, b) => a - b) };
  }

  // Say `text` to screen readers: appended to the page's #announce log (aria-live), last few kept.
  function announce(text) {
    const box = document.getElementById("announce");
    if (!box || !text) return;
    box.append(el("p", { text }));
    while (box.children.length > 4) box.firstChild.remove();
  }

  // Replace box's children, keeping the keyboard focus on the same control (same id or data-key)
  // when it was inside; if that control is gone, focus fallback() or the box's first enabled button.
  function replaceKeepingFocus(box, children, fallback = null) {
    const a = document.activeElement, had = !!a && a !== document.body && box.contains(a);
    const id = had ? a.id : "", key = had ? a.dataset.key : undefined;
    box.replaceChildren(...children);
    if (!had) return;
    let t = id ? document.getElementById(id) : null;
    if (!t && key !== undefined) t = box.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!t || t.disabled) t = (fallback && fallback()) || box.querySelector("button:not([disabled])");
    if (t) t.focus({ preventScroll: true });
  }

  // True when keys typed at `target` belong to it (a text field, a select) rather than to page shortcuts.
  function typingInto(target) {
    return !!target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
  }

  const reducedMotion = () => !!(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);

  // An optional beep (WebAudio), off unless the page's #sound box is ticked (remembered in this browser).
  let audio = null;
  function soundOn() { const box = document.getElementById("sound"); return !!(box && box.checked); }
  function beep(freq = 660, ms = 90) {
    if (!soundOn()) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.value = 0.08;
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + ms / 1000);
    } catch (e) { /* no audio here */ }
  }
  document.addEventListener("DOMContentLoaded", () => {
    const box = document.getElementById("sound");
    if (!box) return;
    try { box.checked = window.localStorage.getItem("ct-sound") === "on"; } catch (e) { /* no storage */ }
    box.addEventListener("change", () => { try { window.localStorage.setItem("ct-sound", box.checked ? "on" : "off"); } catch (e) { /* no storage */ } });
  });

  async function sha256hex(text) {
    if (!window.crypto || !crypto.subtle) return null;  // only in secure contexts (https, localhost)
    const buf = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(buf)).map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  // The documented shuffle (docs/rules.md, "Seeds"): Fisher-Yates over items, for
  // i = n-1 .. 1 the k-th big-endian 64-bit word of SHA-256(seed+"/0") || SHA-256(seed+"/1") || ...
  // modulo i+1 picks the item swapped into place i. null without Web Crypto.
  async function seededShuffle(items, seed) {
    const out = items.slice(), n = out.length;
    if (n < 2) return out;
    if (!window.crypto || !crypto.subtle) return null;
    const blocks = Math.floor(((n - 1) * 8 + 31) / 32), bytes = new Uint8Array(blocks * 32);
    for (let b = 0; b < blocks; b++) {
      bytes.set(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${seed}/${b}`))), b * 32);
    }
    const words = new DataView(bytes.buffer);
    for (let k = 0, i = n - 1; i > 0; k++, i--) {
      const j = Number(words.getBigUint64(k * 8, false) % BigInt(i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  // The seed commitment of game n of this room as this browser first saw it (kept across reloads).
  function keepCommit(gameNo, commit) {
    const key = `ct-commit:${room}:${gameNo}`;
    if (!store) return commit;
    try {
      const seen = store.getItem(key);
      if (seen) return seen;
      store.setItem(key, commit);
    } catch (e) { /* storage unavailable: this page's memory only */ }
    return commit;
  }
  function seenCommit(gameNo) {
    try { return store ? store.getItem(`ct-commit:${room}:${gameNo}`) : null; } catch (e) { return null; }
  }

  // Show an error in the page's #err banner for 6 s; an empty text hides it.
  function showError(text) {
    const e = document.getElementById("err");
    e.textContent = text;
    e.classList.toggle("hidden", !text);
    if (text) setTimeout(() => { if (e.textContent === text) e.classList.add("hidden"); }, 6000);
  }

  return {
    get token() { return token; }, room, connect, watch, send, el, card, rankName, sha256hex, seededShuffle, keepCommit,
    seenCommit, showError, replaceKeepingFocus, parseCard, parseBid, announce, typingInto, reducedMotion, beep,
    set onState(f) { onState = f; }, set onError(f) { onError = f; }, set onStatus(f) { onStatus = f; },
  };
})();
