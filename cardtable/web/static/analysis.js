// The coach's analysis page: the numbers `cardtable analyze` prints for this game, and a drawn chart
// of the expected point difference (data from GET /api/rooms/{room}/analysis?game=N).
"use strict";

(() => {
  const { el, rankName } = CT;
  const $ = (id) => document.getElementById(id);
  const game = new URLSearchParams(location.search).get("game");

  // "K:0.52 Q:0.31": the four most likely cards, as `cardtable analyze` prints them
  function dist(d) {
    return Object.entries(d).map(([c, p]) => [Number(c), p]).filter(([, p]) => p > 5e-4)
      .sort((a, b) => b[1] - a[1] || b[0] - a[0]).slice(0, 4).map(([c, p]) => `${rankName(c)}:${fixed(p, 2)}`).join(" ");
  }
  // Python's formatting of floats (exact ties round half to even), so the page prints what the CLI prints
  function fixed(x, d) {
    const s = Math.abs(x).toFixed(d + 25), tail = s.slice(-25), head = s.slice(0, -25).replace(/\.$/, "");
    if (/^50*$/.test(tail) && Number(head[head.length - 1]) % 2 === 0) return (x < 0 ? "-" : "") + head;
    return x.toFixed(d);
  }
  const signed = (v) => (v >= 0 || Object.is(v, 0) ? "+" : "") + fixed(v, 2);

  function table(data) {
    const n = data.players;
    const cols = ["rnd", "prize", "pot", n[0], n[1], "equilibrium 1", "equilibrium 2", "lost 1", "lost 2", "exp. diff", "source"];
    $("analysis").tHead.replaceChildren(el("tr", {}, ...cols.map((c) => el("th", { text: c }))));
    const rows = data.rounds.map((r) => {
      const bid = (s) => rankName(r.bids[s]) + (r.probability ? ` (${fixed(r.probability[s], 2)})` : "");
      const lost = (s) => el("td", { class: "num lost" + (r.given_up && r.given_up[s] > 5e-4 ? " bad" : ""), "data-col": `lost${s + 1}`,
                                    text: r.given_up ? fixed(r.given_up[s], 3) : "-" });
      return el("tr", { "data-round": r.number },
        el("td", { class: "num", "data-col": "rnd", text: r.number }),
        el("td", { "data-col": "prize", text: rankName(r.prize) }),
        el("td", { class: "num", "data-col": "pot", text: r.pot }),
        el("td", { "data-col": "bid1", text: bid(0) }), el("td", { "data-col": "bid2", text: bid(1) }),
        el("td", { "data-col": "eq1", text: r.strategy ? dist(r.strategy[0]) : "-" }),
        el("td", { "data-col": "eq2", text: r.strategy ? dist(r.strategy[1]) : "-" }),
        lost(0), lost(1),
        el("td", { class: "num", "data-col": "exp", text: r.expected_after === null ? "-" : signed(r.expected_after) }),
        el("td", { "data-col": "source", text: r.source }));
    });
    $("analysis").tBodies[0].replaceChildren(...rows);
    $("sources").replaceChildren(...Object.entries(data.sources).map(([k, v]) => el("div", { text: `${k}: ${v}` })));
  }

  // The running expected point difference, drawn as a line over the rounds (SVG, no library). The viewBox is
  // the chart's width on the screen in CSS pixels, so that its labels keep their CSS size on a phone (a
  // fixed 640-unit viewBox shrank them to about 6 px at 390 px); a resize draws it again.
  function chart(data) {
    const svg = $("chart"), NS = "http://www.w3.org/2000/svg";
    const shown = Math.floor(svg.getBoundingClientRect().width);
    const W = shown > 0 ? Math.max(shown, 240) : 640, H = 240, L = 50, R = 12, T = 12, B = 26;
    svg.dataset.width = W;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const pts = [];
    if (data.start !== null) pts.push({ x: 0, v: data.start, label: "start" });
    // a value from the carry-over approximation (that of the position the next round is played from) is drawn hollow
    const approx = (i) => i < data.rounds.length && data.rounds[i].source === "approximation";
    if (pts.length) pts[0].approx = approx(0);
    data.rounds.forEach((r, i) => pts.push({ x: r.number, v: r.expected_after, label: `round ${r.number}`, approx: approx(i + 1) }));
    const known = pts.filter((p) => p.v !== null).map((p) => Math.abs(p.v));
    const top = Math.max(1, ...known) * 1.1, last = data.rounds.length;
    const X = (x) => L + (W - L - R) * x / Math.max(1, last), Y = (v) => T + (H - T - B) * (top - v) / (2 * top);
    const node = (tag, attrs, text) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text !== undefined) e.textContent = text;
      return e;
    };
    const parts = [node("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }),
                   node("line", { class: "zero", x1: L, y1: Y(0), x2: W - R, y2: Y(0) })];
    for (const v of [top / 1.1, 0, -top / 1.1]) parts.push(node("text", { class: "tick", x: 4, y: Y(v) + 4 }, signed(v)));
    for (let x = 1; x <= last; x++) parts.push(node("text", { class: "tick", x: X(x), y: H - 8, "text-anchor": "middle" }, String(x)));
    const solved = pts.filter((p) => p.v !== null);
    if (solved.length > 1) parts.push(node("polyline", { class: "line", points: solved.map((p) => `${X(p.x)},${Y(p.v)}`).join(" ") }));
    for (const p of pts) {
      const dot = node("circle", { class: "dot" + (p.v === null ? " unsolved" : "") + (p.approx ? " approx" : ""), cx: X(p.x), cy: Y(p.v === null ? 0 : p.v), r: 4,
                                   "data-round": p.x, "data-value": p.v === null ? "" : fixed(p.v, 2) });
      dot.append(node("title", {}, `${p.label}: ${p.v === null ? "not solved" : signed(p.v)}${p.approx ? " (carry-over approximation)" : ""}`));
      parts.push(dot);
    }
    svg.replaceChildren(...parts);
    $("chartnote").textContent = `${data.players[0]} minus ${data.players[1]}: the points so far plus the equilibrium value of the position, `
      + "i.e. the final point difference to expect if both played the equilibrium from there. It moves with luck (the prize turned up, "
      + "the mixed bids) and drops by the points a player gives up."
      + (data.rounds.some((r) => r.source === "approximation")
        ? " Hollow dots: values from the carry-over approximation (no carry-over table), not the exact equilibrium." : "");
  }

  // The coach in words: the server's sentence for each round and player (cardtable.strategy.coach.round_words,
  // the same text `cardtable analyze` prints); no wording is made here
  function words(data) {
    $("wordsnote").textContent = `${data.players[0]} bids ♠, ${data.players[1]} bids ♣, the prizes are ♦.`;
    $("words").replaceChildren(...data.rounds.map((r) => el("li", { "data-round": r.number, value: r.number },
      el("span", { class: "mini", text: `Round ${r.number}` }),
      ...r.words.map((w, s) => el("div", { "data-seat": s }, el("strong", { text: `${data.players[s]}: ` }), w)))));
  }

  async function load() {
    const url = `/api/rooms/${encodeURIComponent(CT.room)}/analysis` + (game ? `?game=${encodeURIComponent(game)}` : "");
    let r, data;
    try {
      r = await fetch(url);
      data = await r.json();
    } catch (e) {
      CT.showError("could not reach the server; reload to try again");
      return;
    }
    if (!r.ok) { $("summary").textContent = data.error || `no analysis (HTTP ${r.status})`; document.body.dataset.state = "error"; return; }
    const n = data.players, t = data.given_up;
    $("rules").textContent = data.rules;
    $("summary").textContent = `Game ${data.game}: ${n[0]} ${data.final[0]} – ${data.final[1]} ${n[1]}` + (data.hints ? " · hints on" : "");
    $("totals").textContent = `expected points given up versus equilibrium: ${n[0]} ${fixed(t[0], 3)}, ${n[1]} ${fixed(t[1], 3)} (solved rounds only`
      + (data.rounds.some((r) => r.source === "approximation") ? "; approximated rounds: against the carry-over approximation)" : ")");
    words(data);
    table(data);
    chart(data);
    let width = $("chart").dataset.width;
    window.addEventListener("resize", () => {
      if (Math.floor($("chart").getBoundingClientRect().width) === Number(width)) return;
      chart(data);
      width = $("chart").dataset.width;
    });
    document.body.dataset.state = "ready";
  }
  load();
})();
