// The replay board: a Goofspiel record stepped through round by round, its analysis beside it.
// Data: POST /api/replay (a pasted or uploaded record), GET /api/replay/rooms/R?game=N (a room's
// finished game); analysis: POST /api/replay/analysis or GET /api/rooms/R/analysis?game=N.
// The address fragment names the round (#round=3); for a pasted record it also carries the record,
// compressed (#rec=...), when that stays under LINK_LIMIT characters.
"use strict";

(() => {
  const { el, rankName } = CT;
  const $ = (id) => document.getElementById(id);
  const MAX_RECORD = 16000;   // characters, as the server (cardtable/web/replay.py, MAX_RECORD)
  const LINK_LIMIT = 6000;    // most characters of a record carried in a link
  const search = new URLSearchParams(location.search);
  const room = search.get("room");

  let games = [], gi = 0, at = 1, text = null, packed = null;
  const analyses = new Map();  // game index -> analysis data, or {error}

  function fail(message) {
    $("err").textContent = message;
    $("err").classList.toggle("hidden", !message);
  }

  function hashParams() { return new URLSearchParams(location.hash.replace(/^#/, "")); }

  // -- the record in a link: deflate-raw (CompressionStream) then base64url; "z" compressed, "u" plain UTF-8
  const b64url = (bytes) => {
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  const unb64url = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  async function pack(t) {
    const raw = new TextEncoder().encode(t);
    if (!window.CompressionStream) return "u" + b64url(raw);
    const z = new Blob([raw]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    return "z" + b64url(new Uint8Array(await new Response(z).arrayBuffer()));
  }
  async function unpack(s) {
    const bytes = unb64url(s.slice(1));
    if (s[0] === "u") return new TextDecoder().decode(bytes);
    const z = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return await new Response(z).text();
  }

  async function answer(response) {
    let data = null;
    try { data = await response.json(); } catch (e) { /* not JSON */ }
    if (!response.ok) throw new Error((data && data.error) || `the server answered ${response.status}`);
    return data;
  }
  const post = (url, body) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  // -- opening a record ----------------------------------------------------------------
  async function openText(t, round) {
    fail("");
    if (!t.trim()) { fail("paste a record first, or upload a record file"); return; }
    if (t.length > MAX_RECORD) { fail(`the record is over ${MAX_RECORD} characters: the replay board takes one game or a short match`); return; }
    try {
      const data = await answer(await post("/api/replay", { record: t }));
      text = t;
      packed = await pack(t).catch(() => null);
      show(data.games, 0, round || 1);
    } catch (e) { fail(e.message); }
  }

  async function openRoom(round) {
    const game = search.get("game");
    try {
      const data = await answer(await fetch(`/api/replay/rooms/${encodeURIComponent(room)}` + (game ? `?game=${encodeURIComponent(game)}` : "")));
      $("open").classList.add("hidden");
      show([data], 0, round || 1);
    } catch (e) { fail(e.message); }
  }

  function show(list, index, round) {
    games = list; gi = index; analyses.clear();
    $("boards").classList.remove("hidden");
    gameNav();
    go(round, true);
    analysis();
  }

  function gameNav() {
    const box = $("gamenav");
    box.replaceChildren();
    const g = games[gi];
    $("rules").textContent = `${g.players.join(" vs ")} · ${g.rules}`;
    if (room && games[0].finished_games && games[0].finished_games.length > 1) {
      const pick = el("select", { id: "gamepick" }, ...g.finished_games.map((n) => el("option", { value: n, text: `game ${n}`, selected: n === g.game })));
      pick.addEventListener("change", () => { location.search = `?room=${encodeURIComponent(room)}&game=${pick.value}`; });
      box.append(el("label", { for: "gamepick", text: "Game of this room" }), pick);
    } else if (games.length > 1) {
      const pick = el("select", { id: "gamepick" }, ...games.map((x, i) => el("option", { value: i, text: `game ${i + 1}: ${x.players.join(" vs ")}`, selected: i === gi })));
      pick.addEventListener("change", () => { gi = Number(pick.value); $("rules").textContent = `${games[gi].players.join(" vs ")} · ${games[gi].rules}`; go(1, true); analysis(); });
      box.append(el("label", { for: "gamepick", text: "Game of the record" }), pick);
    }
    const total = g.scores.join(" - ");
    box.append(el("span", { class: "mini", text: `final points ${total}` + (g.result ? ` (${g.result.join(", ")})` : " (unfinished)") }));
  }

  // -- one round -------------------------------------------------------------------------
  const chips = (cards, cls = "") => el("span", { class: "chips" }, ...(cards.length ? cards.map((c) => el("span", { class: `chip ${cls}`.trim(), text: rankName(c) })) : [el("span", { class: "mini", text: "none" })]));

  function go(round, force) {
    const g = games[gi];
    if (!g) return;
    const n = g.rounds.length;
    if (!n) { $("where").textContent = "no round was played"; return; }
    const r = Math.min(Math.max(1, Number(round) || 1), n);
    if (r === at && !force) return;
    at = r;
    const R = g.rounds[r - 1];
    document.body.dataset.state = "ready";
    document.body.dataset.round = r;
    $("where").textContent = `Round ${r} of ${n}`;
    $("first").disabled = $("prev").disabled = r === 1;
    $("last").disabled = $("next").disabled = r === n;
    const fact = (k, v) => [el("dt", { text: k }), el("dd", {}, v)];
    $("facts").replaceChildren(
      ...fact("Prize turned up", chips(R.turned, "prize")),
      ...fact("Played for", el("span", {}, chips(R.prizes, "prize"), ` worth ${R.stake} point${R.stake === 1 ? "" : "s"}` + (R.carried_in ? ` (${R.carried_in} carried in from tied rounds)` : ""))),
      ...fact("Still face down", chips(R.face_down, "prize")));
    $("seats").tHead.replaceChildren(el("tr", {}, ...["Player", "Hand before the round", "Bid", "Points"].map((h) => el("th", { scope: "col", text: h }))));
    $("seats").tBodies[0].replaceChildren(...g.players.map((name, s) => el("tr", { class: "seatrow", "data-seat": s },
      el("th", { scope: "row", text: name }),
      el("td", {}, el("span", { class: "chips" }, ...R.hands[s].map((c) => el("span", { class: "chip" + (R.bids[s].includes(c) ? " bid" : ""), text: rankName(c) })))),
      el("td", { "data-col": "bid", text: R.bids[s].map(rankName).join("+") }),
      el("td", { class: "num", "data-col": "points", text: `${R.points_before[s]} → ${R.points_after[s]}` }))));
    $("outcome").textContent = outcome(g, R);
    const ex = $("explore");
    ex.classList.toggle("hidden", !R.explore);
    if (R.explore) ex.href = `/explorer?${R.explore}`;
    link();
    analysisRound();
  }

  function outcome(g, R) {
    const name = (s) => g.players[s];
    if (R.winner !== null) return `${name(R.winner)} takes the pot: ${R.stake} point${R.stake === 1 ? "" : "s"}.`;
    if (R.taken.length) return R.taken.map(([s, p]) => `${name(s)} takes ${rankName(p)}`).join(", ") + ".";
    if (R.carried.length) return "A tie: the pot is carried to the next round.";
    if (R.discarded.length) return "A tie: the prizes are put aside, nobody scores them.";
    return "Nobody takes a prize.";
  }

  // -- the link to this round ------------------------------------------------------------
  function link() {
    const h = new URLSearchParams();
    h.set("round", at);
    let note = "";
    if (!room) {
      if (games.length > 1) h.set("game", gi + 1);
      if (packed && packed.length <= LINK_LIMIT) h.set("rec", packed);
      else note = "This record is too long to travel in a link: the link names the round only; share the record file with it.";
    }
    history.replaceState(null, "", "#" + h.toString());
    $("linknote").textContent = note;
  }

  async function copyLink() {
    const box = $("linkbox");
    box.value = location.href;
    try {
      await navigator.clipboard.writeText(location.href);
      $("linknote").textContent = `Link to round ${at} copied.`;
      box.classList.add("hidden");
    } catch (e) {  // no clipboard (an insecure origin): show the link to copy by hand
      box.classList.remove("hidden");
      box.select();
      $("linknote").textContent = "Copy the link below.";
    }
  }

  // -- the analysis beside it ------------------------------------------------------------
  async function analysis() {
    const g = games[gi], k = gi;
    if (!g.analysable) { analyses.set(k, { error: "no analysis: it covers 2-player games with single-card bids and one prize at a time" }); analysisRound(); return; }
    $("analysis").textContent = "Solving the game…";
    try {
      const data = room ? await answer(await fetch(`/api/rooms/${encodeURIComponent(room)}/analysis?game=${g.game}`))
        : await answer(await post("/api/replay/analysis", { record: text, game: g.game }));
      analyses.set(k, data);
    } catch (e) { analyses.set(k, { error: e.message }); }
    if (k === gi) analysisRound();
  }

  const fixed = (x, d = 2) => (x === null || x === undefined ? "-" : Number(x).toFixed(d));
  const signed = (v) => (v === null || v === undefined ? "-" : (v >= 0 ? "+" : "") + fixed(v));
  function dist(d) {
    return Object.entries(d).map(([c, p]) => [Number(c), p]).filter(([, p]) => p > 5e-4)
      .sort((a, b) => b[1] - a[1] || b[0] - a[0]).map(([c, p]) => `${rankName(c)}: ${fixed(p)}`).join(", ");
  }

  function analysisRound() {
    const box = $("analysis"), data = analyses.get(gi), g = games[gi];
    if (!data) return;
    if (data.error) { box.replaceChildren(el("p", { text: data.error })); return; }
    const r = data.rounds[at - 1];
    if (!r) { box.textContent = "no analysis of this round"; return; }
    const rows = g.players.map((name, s) => el("tr", {},
      el("th", { scope: "row", text: name }),
      el("td", { text: rankName(r.bids[s]) + (r.probability ? ` (${fixed(r.probability[s])})` : "") }),
      el("td", { text: r.strategy ? dist(r.strategy[s]) : "-" }),
      el("td", { class: "num", text: r.given_up ? fixed(r.given_up[s], 3) : "-" })));
    box.replaceChildren(
      el("table", { id: "eqtable" }, el("caption", { class: "sr-only", text: `equilibrium in round ${at}` }),
        el("thead", {}, el("tr", {}, ...["Player", "Bid (its probability)", "Equilibrium mix", "Points given up"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, ...rows)),
      // the coach in words: the server's sentence for each player (cardtable.strategy.coach.round_words, as on the
      // analysis page and in `cardtable analyze --words`); none is made here
      el("div", { id: "roundwords", class: "coachwords" }, ...(r.words || []).map((w, s) => el("p", { "data-seat": s },
        el("strong", { text: `${g.players[s]}: ` }), w))),
      el("p", { id: "expdiff", text: `Expected point difference (${g.players[0]} minus ${g.players[1]}): ${signed(r.expected_before)} before the round, ${signed(r.expected_after)} after it.` }),
      el("p", { class: "mini", text: `Source: ${r.source} (${(data.sources || {})[r.source] || ""}).` }),
      el("p", { class: "mini", text: `Points given up over the game: ${g.players[0]} ${fixed(data.given_up[0], 3)}, ${g.players[1]} ${fixed(data.given_up[1], 3)}.` }));
  }

  // -- wiring ----------------------------------------------------------------------------
  $("first").addEventListener("click", () => go(1));
  $("prev").addEventListener("click", () => go(at - 1));
  $("next").addEventListener("click", () => go(at + 1));
  $("last").addEventListener("click", () => go(Infinity));
  $("copylink").addEventListener("click", copyLink);
  document.addEventListener("keydown", (e) => {
    if (!games.length || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest && e.target.closest("input, textarea, select")) return;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 1, End: Infinity }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });
  window.addEventListener("hashchange", () => { const r = Number(hashParams().get("round")); if (r) go(r); });
  $("recordform").addEventListener("submit", (e) => { e.preventDefault(); openText($("recordtext").value, 1); });
  $("recordfile").addEventListener("change", async () => {
    const f = $("recordfile").files[0];
    if (!f) return;
    if (f.size > MAX_RECORD * 4) { fail(`that file is too big (${f.size} bytes): the replay board takes records of at most ${MAX_RECORD} characters`); return; }
    const t = await f.text();
    $("recordtext").value = t;
    openText(t, 1);
  });

  (async () => {
    const h = hashParams(), round = Number(h.get("round")) || 1;
    if (room) { await openRoom(round); return; }
    const rec = h.get("rec");
    if (!rec) return;
    let t;
    try { t = await unpack(rec); } catch (e) { fail("the record in this link is damaged: it cannot be read"); return; }
    $("recordtext").value = t;
    await openText(t, round);
    const gsel = Number(h.get("game"));
    if (gsel > 1 && gsel <= games.length) { gi = gsel - 1; gameNav(); go(round, true); analysis(); }
  })();
})();
