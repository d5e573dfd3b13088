// The lobby (open games) and the creation form, built from /api/games.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  let games = {};
  let botStatus = {};  // bot name -> {ok, reason} for the rules in the form (server-checked)
  let checks = 0;

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  function showError(text) { $("err").textContent = text; $("err").classList.toggle("hidden", !text); }

  const LABELS = {
    cards: "cards", players: "players", tie_rule: "ties", unique_bids: "highest unique bid",
    high_ace: "high ace", cards_per_bid: "cards per bid", open_prizes: "open prizes", prize_order: "prize order",
    hints: "hints: the equilibrium before each bid (one person against bots; recorded as hints on)",
  };

  function buildRules() {
    const g = games[$("game").value];
    const box = $("rules");
    box.replaceChildren(el("legend", { class: "mini", text: "Rules" }));
    for (const [name, spec] of Object.entries(g.fields)) {
      let input;
      if (spec === "bool") input = el("input", { type: "checkbox", name });
      else if (Array.isArray(spec)) input = el("select", { name }, ...spec.map((o) => el("option", { value: o, text: o })));
      else input = el("input", { type: "number", name, min: spec.min, max: spec.max });
      input.id = "f-" + name;
      input.addEventListener("change", () => { if (name === "players") buildSeats(); checkBots(); });
      box.append(el("label", {}, spec === "bool" ? input : null, LABELS[name] || name, spec === "bool" ? null : input));
    }
    $("preset").replaceChildren(...Object.keys(g.presets).map((p) => el("option", { value: p, text: p })));
    applyPreset();
  }

  function applyPreset() {
    const g = games[$("game").value];
    const values = g.presets[$("preset").value] || g.defaults;
    for (const [name, value] of Object.entries(values)) {
      const input = $("f-" + name);
      if (!input) continue;
      if (input.type === "checkbox") input.checked = !!value;
      else input.value = Array.isArray(value) ? "shuffled" : value;
    }
    buildSeats();
    checkBots();
  }

  // Ask the server which bots can play the rules in the form; the others are disabled.
  async function checkBots() {
    const n = ++checks, game = $("game").value;
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(game)}/bots`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(settings()) });
      if (n !== checks || !r.ok) return;  // a newer check is on its way, or the rules are invalid (creating says why)
      botStatus = Object.fromEntries((await r.json()).map((b) => [b.name, b]));
      markBots();
    } catch (e) { /* offline: leave the list as it is */ }
  }

  function markBots() {
    for (const opt of $("seats").querySelectorAll("option[data-bot]")) {
      const st = botStatus[opt.value], bad = st && !st.ok;
      opt.disabled = !!bad;
      opt.textContent = `bot: ${opt.value}` + (bad ? " (cannot play these rules)" : "");
      opt.title = bad ? st.reason : opt.dataset.description;
    }
  }

  function buildSeats() {
    const g = games[$("game").value];
    const n = Number(($("f-players") || {}).value || g.seats.min);
    const box = $("seats");
    const old = Array.from(box.querySelectorAll("select")).map((s) => s.value);
    box.replaceChildren();
    for (let i = 0; i < n; i++) {
      const sel = el("select", { "data-seat": i, id: `seat-${i}` }, el("option", { value: "", text: "person (invite link)" }),
        ...g.bots.map((b) => el("option", { value: b.name, text: `bot: ${b.name}`, title: b.description, "data-bot": b.name, "data-description": b.description })));
      if (old[i] !== undefined) sel.value = old[i];
      box.append(el("div", {}, el("label", {}, `Seat ${i + 1}`, sel), el("label", {}, "name", el("input", { id: `name-${i}`, maxlength: 40, placeholder: `Player ${i + 1}` }))));
    }
    markBots();
  }

  function settings() {
    const g = games[$("game").value];
    const out = {};
    for (const [name, spec] of Object.entries(g.fields)) {
      const input = $("f-" + name);
      if (spec === "bool") out[name] = input.checked;
      else if (Array.isArray(spec)) out[name] = input.value;
      else out[name] = Number(input.value);
    }
    return out;
  }

  async function create(ev) {
    ev.preventDefault();
    showError("");
    const n = $("seats").querySelectorAll("select").length;
    const seats = [];
    for (let i = 0; i < n; i++) seats.push({ bot: $(`seat-${i}`).value || null, name: $(`name-${i}`).value.trim() || null });
    const body = {
      game: $("game").value, settings: settings(), seats,
      match: { kind: $("kind").value, games: Number($("games").value), tiebreak: $("tiebreak").value },
      timer: Number($("timer").value), listed: $("listed").checked,
    };
    let r, data;
    try {
      r = await fetch("/api/rooms", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      data = await r.json();
    } catch (e) {
      showError(r ? `could not create the game (HTTP ${r.status})` : "could not reach the server; try again");
      return;
    }
    if (!r.ok) { showError(data.error || `could not create the game (HTTP ${r.status})`); $("err").scrollIntoView(); return; }
    const base = `${location.origin}/play/${encodeURIComponent(data.room)}`;
    // each person's seat: a one-time invite link (its claim code); "new link" revokes it and makes another
    const seatItem = (s, claim) => {
      const link = `${base}#claim=${claim}`;
      const item = el("li", { "data-seat": s.seat }, `Seat ${s.seat + 1} (${s.name}): `,
        el("a", { href: link, class: "seat-link", "data-seat": s.seat, text: "play as this seat" }), " · ",
        el("input", { value: link, readonly: true, size: 40, onclick: (e) => e.target.select() }), " ",
        el("button", { type: "button", class: "secondary reinvite", title: "revoke this link and make a new one (only while nobody has taken the seat)", onclick: () => reinvite(data, s, item) , text: "new link" }));
      return item;
    };
    async function reinvite(data, s, item) {
      const r = await fetch(`/api/rooms/${encodeURIComponent(data.room)}/seats/${s.seat}/invite`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ owner: data.owner }) });
      const got = await r.json();
      if (!r.ok) { showError(got.error); return; }
      item.replaceWith(seatItem(s, got.claim));
    }
    const items = data.seats.map((s) => s.claim ? seatItem(s, s.claim) : el("li", { text: `Seat ${s.seat + 1}: ${s.name} (bot)` }));
    items.push(el("li", {}, "Spectators: ", el("a", { href: base, id: "spectate-link", text: base })));
    items.push(el("li", { class: "mini", text: `Seed commitment (SHA-256) of game 1: ${data.commit || "none (fixed prize order)"}` }));
    $("links").replaceChildren(...items);
    $("created").classList.remove("hidden");
    $("created").dataset.room = data.room;
    $("created").scrollIntoView();
    loadLobby();
  }

  async function join(room) {
    const r = await fetch(`/api/rooms/${encodeURIComponent(room)}/join`, { method: "POST" });
    const data = await r.json();
    if (!r.ok) { showError(data.error); loadLobby(); return; }
    location.href = `/play/${encodeURIComponent(room)}#token=${data.token}`;
  }

  async function loadLobby() {
    try {
      const rooms = await (await fetch("/api/lobby")).json();
      const rows = rooms.map((r) => el("div", { class: "lobby-room", "data-room": r.room },
        el("b", { text: r.title }),
        el("span", { class: "mini", text: describe(r) }),
        el("span", { class: "mini", text: r.seats.map((s) => s.bot ? `${s.name}` : (s.free ? "free seat" : s.name)).join(" · ") }),
        el("button", { class: "secondary", onclick: () => join(r.room), text: "Join" }),
        el("a", { href: `/play/${encodeURIComponent(r.room)}`, text: "watch" })));
      $("lobby").replaceChildren(...(rows.length ? rows : [el("span", { class: "mini", text: "No open games: create one below." })]));
    } catch (e) { /* offline: keep the old list */ }
  }

  function describe(r) {
    const rs = r.settings.ruleset || {};
    if (r.game === "golf") {
      return [`${rs.players} players`, `${rs.rows}x${rs.cols} grid`, `match ${r.match}`].concat(r.timer ? [`${r.timer}s timer`] : []).join(", ");
    }
    const bits = [`${rs.cards} cards`, `${rs.players} players`, `ties ${rs.tie_rule}`];
    if (rs.high_ace) bits.push("high ace");
    if (rs.cards_per_bid > 1) bits.push(`${rs.cards_per_bid}-card bids`);
    if (rs.open_prizes > 1) bits.push(`${rs.open_prizes} open prizes`);
    if (rs.prize_order !== "shuffled") bits.push(`order ${rs.prize_order}`);
    bits.push(`match ${r.match}`);
    if (r.timer) bits.push(`${r.timer}s timer`);
    return bits.join(", ");
  }

  async function init() {
    games = await (await fetch("/api/games")).json();
    const titles = Object.values(games).map((g) => g.title);
    $("subtitle").textContent = `${titles.length > 1 ? titles.slice(0, -1).join(", ") + " and " + titles[titles.length - 1] : titles[0]} in the browser: invite a friend by link, or play a bot`;
    $("game").replaceChildren(...Object.entries(games).map(([k, g]) => el("option", { value: k, text: g.title })));
    $("game").addEventListener("change", buildRules);
    $("preset").addEventListener("change", applyPreset);
    $("create").addEventListener("submit", create);
    buildRules();
    loadLobby();
    setInterval(loadLobby, 5000);
  }
  init();
})();
