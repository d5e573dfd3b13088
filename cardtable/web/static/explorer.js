// The equilibrium explorer: a position's equilibrium from GET /api/explorer (the same query as this
// page's address, so a link shares the position): a heat map of your mix for every prize, and for one
// prize both mixes and the value of each bid against the equilibrium.
"use strict";

(() => {
  const { el, rankName } = CT;
  const $ = (id) => document.getElementById(id);
  const FIELDS = ["cards", "ties", "ace", "pot", "prizes", "you", "opp", "prize"];
  const NAMES = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
  let data = null, chosen = null;

  function fail(message) {
    $("err").textContent = message;
    $("err").classList.toggle("hidden", !message);
  }
  const fixed = (x, d = 2) => Number(x).toFixed(d);
  const signed = (v) => (v >= 0 ? "+" : "") + fixed(v);

  function query() {
    const q = new URLSearchParams();
    for (const f of FIELDS) {
      const v = $(f).value.trim();
      if (f === "prize") {
        if (v) q.set(f, NAMES[v.toUpperCase()] || v);
      } else q.set(f, v);
    }
    return q;
  }

  async function explore(push) {
    fail("");
    const q = query();
    if (push) history.replaceState(null, "", `/explorer?${q}`);
    $("busy").textContent = "Solving…";
    $("show").disabled = true;
    document.body.dataset.state = "loading";
    try {
      const r = await fetch(`/api/explorer?${q}`);
      let got = null;
      try { got = await r.json(); } catch (e) { /* not JSON */ }
      if (!r.ok) throw new Error((got && got.error) || `the server answered ${r.status}`);
      data = got;
      chosen = data.prize !== null ? data.prize : null;
      render();
      document.body.dataset.state = "ready";
    } catch (e) {
      fail(e.message);
      document.body.dataset.state = "error";
    } finally {
      $("busy").textContent = "";
      $("show").disabled = false;
    }
  }

  function shade(p) {  // white to green: dark text stays readable on every shade
    const mix = (a, b) => Math.round(a + (b - a) * p);
    return `rgb(${mix(255, 63)}, ${mix(255, 170)}, ${mix(255, 110)})`;
  }

  function render() {
    $("result").classList.remove("hidden");
    $("rules").textContent = data.rules;
    $("value").replaceChildren(el("b", { text: "Position value: " }),
      el("span", { id: "posvalue", text: signed(data.value) }),
      ` points for you: the points still to come, yours minus the opponent's, expected under equilibrium play before the next prize is turned up` +
      (data.position.pot ? ` (the ${data.position.pot} points in the pot included)` : "") + ".");
    $("source").textContent = `Source: ${data.source} (${data.source_words}); ` + (data.exact ? "exact." : "NOT exact: an approximation of the equilibrium.");
    const head = el("tr", {}, el("th", { scope: "col", text: "prize \\ your bid" }), ...data.your_cards.map((c) => el("th", { scope: "col", text: rankName(c) })));
    $("heat").tHead.replaceChildren(head);
    $("heat").tBodies[0].replaceChildren(...data.rows.map((row) => el("tr", { "data-prize": row.prize, class: row.prize === chosen ? "current" : "" },
      el("th", { scope: "row" }, el("button", { type: "button", "aria-pressed": row.prize === chosen ? "true" : "false",
        onclick: () => choose(row.prize), text: `prize ${rankName(row.prize)}` })),
      ...data.your_cards.map((c) => {
        const p = row.mix[String(c)] || 0;
        return el("td", { style: `background:${shade(p)}`, "data-card": c, text: fixed(p) });
      }))));
    detail();
  }

  function choose(prize) {
    chosen = prize;
    const q = new URLSearchParams(location.search);
    q.set("prize", prize);
    $("prize").value = rankName(prize);
    history.replaceState(null, "", `/explorer?${q}`);
    render();
  }

  function detail() {
    const box = $("detail");
    const row = data.rows.find((r) => r.prize === chosen);
    if (!row) { box.replaceChildren(el("p", { text: "Choose a prize in the heat map (or give the prize on the table)." })); return; }
    const table = (caption, who, cards, mix, values, valueHead) => el("table", {},
      el("caption", { class: "mini", text: caption }),
      el("thead", {}, el("tr", {}, ...[who, "probability", valueHead].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...cards.map((c) => el("tr", { "data-card": c },
        el("th", { scope: "row", text: rankName(c) }),
        el("td", { class: "num", text: fixed(mix[String(c)] || 0) }),
        el("td", { class: "num", text: signed(values[String(c)]) })))));
    box.replaceChildren(
      el("p", {}, el("b", { text: `Prize ${rankName(row.prize)} on the table: ` }), el("span", { id: "roundvalue", text: signed(row.value) }),
        " points for you, expected under equilibrium play (this round's stake included)."),
      table("Your bids: the equilibrium's probability, and your expected points if you bid that card and the opponent plays the equilibrium (equilibrium play afterwards).",
        "your card", data.your_cards, row.mix, row.bid_values, "your expected points"),
      table("The opponent's bids: the equilibrium's probability, and your expected points if they bid that card against your equilibrium.",
        "their card", data.opp_cards, row.opp_mix, row.opp_bid_values, "your expected points"));
  }

  $("posform").addEventListener("submit", (e) => { e.preventDefault(); explore(true); });
  const q = new URLSearchParams(location.search);
  if (q.has("prizes")) {
    for (const f of FIELDS) if (q.has(f)) $(f).value = f === "prize" ? rankName(Number(q.get(f))) || q.get(f) : q.get(f);
    explore(false);
  }
})();
