// Goofspiel play screen: renders the per-viewer view the server sends.
// Click a card to select it, click it again (or press Bid) to confirm; or type the card
// (K, 10, T, A, 7; "7 9" for two) and press Enter. Hand cards are buttons: Tab, Enter, Enter.
// Each resolved round is revealed: the bids face down, then turned over together; against a
// bot the next round waits about a second (any key or click goes on at once).
"use strict";

(() => {
  const { el, card, rankName } = CT;
  const $ = (id) => document.getElementById(id);
  let last = null, selected = [], sending = false, deadline = null, timerId = null;
  let typedError = "", shownReveal = null, pending = null, pauseId = null, announcedTurn = null;
  const HOLD_MS = 1000, FLIP_DELAY_MS = 250, FLIP_MS = 450;  // the reveal's pause against a bot, the turn
  const commits = {};  // game number -> seed commitment seen while the game was on

  function names(msg) { return msg.seats.map((s) => s.name); }
  function cardText(rank, suit) { return rankName(rank) + suit; }

  const showError = CT.showError;

  async function act(action) {
    sending = true;
    render(last);
    const err = await CT.send({ type: "act", action });
    sending = false;
    if (err) showError(err.message);
    else { selected = []; showError(""); $("bidtype").value = ""; typedError = ""; }
    render(last);
  }

  function clickHandCard(rank) {
    const v = last.view, k = v.ruleset.cards_per_bid;
    if (!canBid(v) || sending) return;
    if (selected.includes(rank)) {
      if (k === 1) { act({ bid: [rank] }); return; }
      selected = selected.filter((r) => r !== rank);
    } else {
      if (k === 1) selected = [rank];
      else if (selected.length < k) selected.push(rank);
    }
    render(last);
  }

  function clickPrize(rank) {
    const v = last.view;
    if (!(v.phase === "choose" && v.chooser === v.you) || sending) return;
    if (selected.includes(rank)) act({ choose: rank });
    else { selected = [rank]; render(last); }
  }

  function canBid(v) { return v.you !== null && v.phase === "bid" && v.my_bid === null; }

  function statusText(msg) {
    const v = msg.view, you = v.you, n = names(msg);
    if (v.phase === "over") return "";  // the "Game over" panel says it (once)
    if (v.phase === "choose") {
      return v.chooser === you ? "Choose a prize from the display" : `Waiting for ${n[v.chooser]} to choose a prize`;
    }
    if (you === null) {
      const waiting = v.to_act.map((s) => n[s]).join(", ");
      return `Watching · waiting for ${waiting}`;
    }
    if (v.my_bid === null) return "Your bid: pick a card";
    const others = v.to_act.filter((s) => s !== you).map((s) => n[s]);
    return `Waiting for the other player${others.length > 1 ? "s" : ""}: ${others.join(", ")}`;
  }

  function describeRound(msg, r) {
    const v = msg.view, n = names(msg);
    const bids = r.bids.map((b, s) => `${s === v.you ? "You" : n[s]} ${b.map((c) => cardText(c, v.players[s].suit)).join("+")}`);
    const prizes = r.prizes.map((p) => cardText(p, v.prize_suit)).join(" ");
    let outcome;
    if (r.taken.length && r.winner === null) outcome = r.taken.map(([s, p]) => `${s === v.you ? "you" : n[s]} take${s === v.you ? "" : "s"} ${cardText(p, v.prize_suit)}`).join(", ");
    else if (r.winner !== null) outcome = `${r.winner === v.you ? "you win" : n[r.winner] + " wins"} ${prizes}`;
    else if (r.carried.length) outcome = "tie: the pot carries over";
    else outcome = "tie: the prizes are discarded";
    return { bids, prizes, outcome };
  }

  function render(msg) {
    if (!msg) return;
    const v = msg.view, you = v.you, n = names(msg);
    document.body.dataset.phase = v.phase;
    document.body.dataset.round = v.round;
    document.body.dataset.waiting = v.phase === "bid" && you !== null && v.my_bid !== null ? "yes" : "no";
    $("rules").textContent = v.rules;
    const m = msg.match;
    $("matchline").textContent = `match ${m.format} · game ${m.game}` + (m.scores.length ? ` · totals ${m.totals.join("–")}` : "")
      + (v.hints ? " · hints on" : "");
    $("status").textContent = statusText(msg);
    $("status").classList.toggle("hidden", v.phase === "over");
    $("roundline").textContent = v.phase === "over" ? `${v.history.length} rounds played` : `Round ${v.round} of ${v.rounds}`;
    if (v.seed_commit && v.phase !== "over") commits[msg.game_no] = CT.keepCommit(msg.game_no, v.seed_commit);

    // pot / display
    const choosing = v.phase === "choose" && v.chooser === you;
    const potCards = v.pot.map((p) => card(p, v.prize_suit, choosing
      ? { tag: "button", class: "playable" + (selected.includes(p) ? " selected" : ""), "data-key": p, "aria-pressed": selected.includes(p) ? "true" : "false",
          "aria-label": `prize ${cardText(p, v.prize_suit)}`, onclick: () => clickPrize(p) }
      : {}));
    CT.replaceKeepingFocus($("pot"), potCards.length ? potCards : [el("span", { class: "mini", text: "—" })], () => $("bidtype"));
    renderBids(msg);
    $("potvalue").textContent = v.pot_value;
    let left = `${v.remaining_prizes.length} prize${v.remaining_prizes.length === 1 ? "" : "s"} face down: ${v.remaining_prizes.map((p) => rankName(p)).join(" ") || "none"}`;
    if (v.upcoming) left += ` · next in order: ${v.upcoming.map((p) => rankName(p)).join(" ")}`;
    $("prizesleft").textContent = left;

    // the last reveal (shown to everyone at once: it arrives with the state that resolves the round)
    renderReveal(msg, false);

    // players (opponents; everyone for spectators)
    const boxes = [];
    for (const p of v.players) {
      if (p.seat === you) continue;
      const seat = msg.seats[p.seat];
      let st = "";
      if (v.phase === "bid") st = p.has_bid ? "has bid ✓" : (v.to_act.includes(p.seat) ? "thinking…" : "");
      if (v.phase === "choose" && v.chooser === p.seat) st = "choosing a prize…";
      boxes.push(el("div", { class: "panel player", "data-seat": p.seat },
        el("div", {}, el("span", { class: "dot" + (seat.connected ? " on" : ""), title: seat.connected ? "online" : "offline" }),
          el("span", { class: "name", text: seat.name + (seat.bot ? " (bot)" : "") }), " ",
          el("span", { class: "mini", text: `${p.points} pts` })),
        el("div", { class: "state" + (p.has_bid ? " ready" : ""), text: st }),
        el("div", { class: "mini" }, "left ", el("b", { text: p.remaining.map((c) => rankName(c)).join(" ") || "—" }), " ", el("span", { text: p.suit })),
        el("div", { class: "mini", text: `spent ${p.spent.map((c) => rankName(c)).join(" ") || "—"}` }),
        el("div", { class: "mini", text: `won ${p.won.map((c) => rankName(c)).join(" ") || "—"}` })));
    }
    $("players").replaceChildren(...boxes);

    // my hand
    const me = $("me");
    me.classList.toggle("hidden", you === null);
    renderHint(v);
    if (you !== null) {
      const mine = v.players[you];
      $("myname").textContent = `${msg.seats[you].name} (you, ${mine.suit})`;
      $("myscore").textContent = `${mine.points} pts · won ${mine.won.map((c) => rankName(c)).join(" ") || "—"}`;
      const bidding = canBid(v) && !sending, k = v.ruleset.cards_per_bid;
      selected = selected.filter((r) => v.phase === "choose" ? v.pot.includes(r) : v.hand.includes(r));
      CT.replaceKeepingFocus($("hand"), Array.from({ length: v.ruleset.cards }, (_, i) => i + 1).map((r) => {
        const name = cardText(r, mine.suit);
        if (!v.hand.includes(r)) return card(r, mine.suit, { class: "spent", title: `${name} (spent)` });
        const isSel = selected.includes(r) && v.phase === "bid";
        const cls = [bidding ? "playable" : "", isSel ? "selected" : "", v.my_bid && v.my_bid.includes(r) ? "bid selected" : ""].join(" ");
        if (!bidding) return card(r, mine.suit, { class: cls });
        return card(r, mine.suit, { tag: "button", class: cls, "data-key": r, "aria-pressed": isSel ? "true" : "false",
          "aria-label": isSel && k === 1 ? `${name}, selected: press again to bid it` : name, onclick: () => clickHandCard(r) });
      }), () => $("bidtype"));
      $("typebox").classList.toggle("hidden", v.phase === "over");
      const btn = $("bidbtn");
      // single-card bids are made by clicking a card (twice): no Bid button then
      btn.classList.toggle("hidden", !bidding || k === 1);
      btn.disabled = selected.length !== k;
      btn.textContent = selected.length ? `Bid ${selected.map((c) => cardText(c, mine.suit)).join("+")}` : "Bid";
      let hint = "";
      if (v.my_bid && v.phase === "bid") hint = `You bid ${v.my_bid.map((c) => cardText(c, mine.suit)).join("+")} · waiting for the other player${v.players.length > 2 ? "s" : ""}`;
      else if (bidding && typedError) hint = typedError;
      else if (bidding) {
        const ready = selected.length === k, sel = selected.map((c) => cardText(c, mine.suit)).join("+");
        hint = ready ? `Enter (or the card again) bids ${sel}` : (k === 1 ? "Click or type a card to bid it" : `Pick ${k} cards, then press Bid`);
      }
      else if (v.phase === "choose" && v.chooser === you) hint = typedError || "Click or type a prize, then again (or Enter) to take it";
      else if (sending) hint = "Sending…";
      $("hint").textContent = hint;
    }

    renderTimer(msg);
    renderHistory(msg);
    renderEnd(msg);
    announceTurn(msg);
  }

  // This round's bids, face down: who has bid (your own card is named under it).
  function renderBids(msg) {
    const v = msg.view, you = v.you, k = v.ruleset.cards_per_bid;
    const slots = v.phase === "bid" ? v.players.map((p) => {
      const mine = p.seat === you, done = mine ? v.my_bid !== null : p.has_bid;
      const who = mine ? "You" : msg.seats[p.seat].name;
      const what = mine && done ? v.my_bid.map((c) => cardText(c, p.suit)).join("+") : "";
      const backs = done ? Array.from({ length: k }, () => el("div", { class: "card back", "aria-hidden": "true" })) : [el("div", { class: "slot-hole", "aria-hidden": "true" })];
      return el("div", { class: "bidslot", "data-seat": p.seat },
        el("div", { class: "cards" }, ...backs),
        el("span", { text: done ? `${who}: ${what ? what + " " : ""}face down` : `${who}: no bid yet` }));
    }) : [];
    $("bids").replaceChildren(...slots);
  }

  function revealOf(msg) {
    const v = msg.view;
    return v.revealed || v.history[v.history.length - 1] || null;
  }

  // "You 12 – 7 heuristic  you lead by 5": the points after the last reveal, large.
  function scoreLine(msg) {
    const v = msg.view, n = names(msg), pts = v.players.map((p) => p.points);
    const who = (s) => (s === v.you ? "You" : n[s]);
    if (pts.length !== 2) return { text: pts.map((p, s) => `${who(s)} ${p}`).join(" · "), diff: "" };
    const ref = v.you === null ? 0 : v.you, d = pts[ref] - pts[1 - ref], other = 1 - ref;
    let diff;
    if (d === 0) diff = "level";
    else if (v.you === null) diff = `${d > 0 ? n[ref] : n[other]} leads by ${Math.abs(d)}`;
    else diff = d > 0 ? `you lead by ${d}` : `you trail by ${-d}`;
    return { text: `${who(ref)} ${pts[ref]} – ${pts[other]} ${who(other)}`, diff };
  }

  // The last resolved round: its prize(s), every bid (turned over together), the outcome and the score.
  // `animate`: a new reveal, the cards start face down and turn (not with prefers-reduced-motion).
  function renderReveal(msg, animate) {
    const r = revealOf(msg), key = r ? `${msg.game_no}:${r.number}` : null;
    if (key === shownReveal) return false;
    const first = shownReveal === null && !animate;
    shownReveal = key;
    const v = msg.view;
    if (!r) {
      $("revealcards").replaceChildren();
      $("reveal").textContent = "—";
      $("scoreline").replaceChildren();
      return false;
    }
    const d = describeRound(msg, r), n = names(msg);
    const flip = (rank, suit) => el("div", { class: "flip" + (animate && !CT.reducedMotion() ? "" : " turned") },
      el("div", { class: "flip-inner" }, el("div", { class: "card back", "aria-hidden": "true" }), card(rank, suit, { class: "face" })));
    const slots = [el("div", { class: "bidslot" }, el("div", { class: "cards" }, ...r.prizes.map((p) => card(p, v.prize_suit))), el("span", { text: "Prize" }))];
    r.bids.forEach((b, s) => slots.push(el("div", { class: "bidslot", "data-seat": s },
      el("div", { class: "cards" }, ...b.map((c) => flip(c, v.players[s].suit))), el("span", { text: s === v.you ? "You" : n[s] }))));
    $("revealcards").replaceChildren(...slots);
    $("revealtitle").textContent = `Round ${r.number} revealed`;
    $("reveal").replaceChildren(el("div", { text: `Round ${r.number}: ${d.prizes}` }), el("div", { text: d.bids.join(" · ") }), el("b", { id: "outcome", text: d.outcome }));
    const sl = scoreLine(msg);
    $("scoreline").replaceChildren(el("span", { text: sl.text }), sl.diff ? el("span", { class: "diff", text: sl.diff }) : "");
    if (animate && !CT.reducedMotion()) {
      setTimeout(() => { for (const f of $("revealcards").querySelectorAll(".flip")) f.classList.add("turned"); }, FLIP_DELAY_MS);
    }
    if (!first) {
      CT.announce(`Round ${r.number} revealed: prize ${d.prizes}. ${d.bids.join(", ")}. ${d.outcome}. Score: ${sl.text}${sl.diff ? ", " + sl.diff : ""}.`);
      CT.beep(r.winner === v.you ? 880 : 520);
    }
    return !first;
  }

  // Tell screen readers whose move it is when that changes (a new round, the choice of a prize, the end).
  function announceTurn(msg) {
    const v = msg.view, key = `${msg.game_no}:${v.round}:${v.phase}:${v.my_bid === null}`;
    if (key === announcedTurn) return;
    announcedTurn = key;
    if (v.phase === "over") { const w = document.getElementById("winner"); CT.announce(`Game over. ${w ? w.textContent : ""}`); return; }
    if (v.you === null) return;
    const pot = v.pot.map((p) => cardText(p, v.prize_suit)).join(" ");
    if (v.phase === "choose" && v.chooser === v.you) CT.announce(`Choose a prize: ${pot}`);
    else if (canBid(v)) CT.announce(`Round ${v.round} of ${v.rounds}: prize ${pot}, pot ${v.pot_value} points. Your bid: type a card and press Enter.`);
  }

  function renderTimer(msg) {
    if (timerId) { clearInterval(timerId); timerId = null; }
    const t = msg.timer;
    if (!t || t.left === null || msg.view.phase === "over") { $("timer").textContent = ""; return; }
    deadline = Date.now() + t.left * 1000;
    const tick = () => {
      const s = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      $("timer").textContent = `⏱ ${s}s`;
    };
    tick();
    timerId = setInterval(tick, 250);
  }

  function renderHistory(msg) {
    const v = msg.view, n = names(msg);
    const head = el("tr", {}, el("th", { text: "#" }), el("th", { text: "Prizes" }), ...v.players.map((p) => el("th", { text: p.seat === v.you ? "You" : n[p.seat] })), el("th", { text: "Outcome" }));
    $("history").tHead.replaceChildren(head);
    const rows = v.history.slice().reverse().map((r) => el("tr", {},
      el("td", { text: r.number }), el("td", { text: r.prizes.map((p) => cardText(p, v.prize_suit)).join(" ") }),
      ...r.bids.map((b, s) => el("td", { text: b.map((c) => cardText(c, v.players[s].suit)).join("+") })),
      el("td", { text: describeRound(msg, r).outcome })));
    $("history").tBodies[0].replaceChildren(...rows);
  }

  // The coach's hint (rooms created with hints on): the equilibrium mix for this round, before you bid
  function renderHint(v) {
    const h = v.hint, box = $("coachhint"), pending = !h && v.hint_pending;
    box.classList.toggle("hidden", !h && !pending);
    if (pending) { box.textContent = "Hint — computing the equilibrium mix for this round…"; return; }
    if (!h) return;
    const mix = Object.entries(h.strategy).filter(([, p]) => p > 5e-3).sort((a, b) => b[1] - a[1])
      .map(([c, p]) => `${rankName(Number(c))} ${Math.round(p * 100)}%`).join(" · ");
    box.textContent = `Hint — ${h.exact ? "equilibrium" : "approximate"} mix for this round (${h.source}): ${mix}`;
  }

  async function renderEnd(msg) {
    const v = msg.view, end = $("end");
    end.classList.toggle("hidden", v.phase !== "over");
    if (v.phase !== "over") return;
    const n = names(msg), res = v.result;
    const line = res.points.map((p, s) => `${s === v.you ? "You" : n[s]} ${p}`).join(" · ");
    const who = res.winner === null ? "Draw" : (res.winner === v.you ? "You win!" : `${n[res.winner]} wins`);
    const m = msg.match;
    const parts = [el("div", { id: "winner", text: `${who} — ${line}` + (res.unowned ? ` (${res.unowned} unowned)` : "") })];
    if (m.over && m.format !== "total 1") parts.push(el("div", { text: `Match over: ${m.result.map((r, s) => `${n[s]} ${r}`).join(", ")}` }));
    $("result").replaceChildren(...parts);
    const btn = $("nextbtn");
    btn.classList.toggle("hidden", v.you === null || !m.next);
    btn.textContent = m.next === "rematch" ? "Rematch" : "Next game";
    $("download").href = `/api/rooms/${encodeURIComponent(msg.room)}/record?match=${m.match_no}`;
    // the coach (cardtable/web/coach.py): 2-player games with single-card bids and one prize at a time
    const rs = v.ruleset, analysable = rs.players === 2 && rs.cards_per_bid === 1 && rs.open_prizes === 1;
    $("analysislink").classList.toggle("hidden", !analysable);
    $("analysislink").href = `/analysis/${encodeURIComponent(msg.room)}?game=${msg.game_no}`;
    $("replaylink").href = `/replay?room=${encodeURIComponent(msg.room)}&game=${msg.game_no}`;  // the replay board
    await renderFairness(msg);
  }

  // The end screen's fairness check, done in this browser (docs/web.md, "Provably fair
  // shuffle"): SHA-256 of the revealed seed against the commitment this browser saw
  // while the game was on (kept across reloads), and the documented shuffle of the seed
  // against the prizes actually turned up. The server's own verdict is not used.
  async function renderFairness(msg) {
    const v = msg.view, f = v.fairness, box = $("fair");
    if (!f || !f.seed) { box.textContent = "Fixed prize order: nothing secret to verify."; return; }
    const kept = commits[msg.game_no] || CT.seenCommit(msg.game_no);
    const seen = kept || v.seed_commit;
    const hash = await CT.sha256hex(f.seed);
    const deck = Array.from({ length: v.ruleset.cards }, (_, i) => i + 1);
    const order = await CT.seededShuffle(deck, f.seed);
    const turned = [];
    for (const r of v.history) for (const p of r.prizes) if (!turned.includes(p)) turned.push(p);
    const items = [];
    if (hash === null || order === null) {
      items.push(el("div", { class: "bad", id: "fair-commit", text: "✗ this browser cannot check the seed here (Web Crypto needs https or localhost): use cardtable verify FILE" }));
    } else {
      const hashOk = hash === seen;
      const orderOk = turned.length > 0 && turned.every((p, i) => order[i] === p);
      items.push(el("div", { class: hashOk && kept ? "ok" : "bad", id: "fair-commit", text: `${hashOk && kept ? "✓" : "✗"} SHA-256 of the seed ${hashOk ? "matches" : "does not match"} the commitment ${kept ? "this browser saw at the start" : "(this browser did not see the start: compared with the server's copy)"} (${seen.slice(0, 12)}…)` }));
      items.push(el("div", { class: orderOk ? "ok" : "bad", id: "fair-order", text: `${orderOk ? "✓" : "✗"} the seed orders the prizes ${orderOk ? "exactly as they were turned up" : "differently from how they were turned up"} (recomputed in this browser: ${order.slice(0, turned.length).map(rankName).join(" ")})` }));
    }
    items.push(el("div", { text: `seed ${f.seed} · check the downloaded record with: cardtable verify FILE` }));
    box.replaceChildren(...items);
  }

  // The reveal's pause against a bot: the next round's state waits in `pending` until it ends.
  function startPause() {
    document.body.dataset.reveal = "pause";
    $("skiphint").classList.remove("hidden");
    pauseId = setTimeout(endPause, HOLD_MS + (CT.reducedMotion() ? 0 : FLIP_DELAY_MS + FLIP_MS));
  }
  function endPause() {
    if (pauseId === null) return;
    clearTimeout(pauseId);
    pauseId = null;
    document.body.dataset.reveal = "";
    $("skiphint").classList.add("hidden");
    const msg = pending;
    pending = null;
    if (msg) accept(msg);
  }

  function accept(msg) {
    if (last && (last.game_no !== msg.game_no || last.view.round !== msg.view.round || last.view.phase !== msg.view.phase)) {
      selected = [];
      typedError = "";
      $("bidtype").value = "";
    }
    last = msg;
    render(msg);
  }

  // Typing a bid: the typed card(s) are selected as you type; Enter bids them.
  function typed() {
    if (!last) return;
    const v = last.view, text = $("bidtype").value;
    typedError = "";
    if (!text.trim()) { selected = []; render(last); return; }
    if (v.phase === "choose" && v.chooser === v.you) {
      const got = CT.parseCard(text, v.ruleset.cards);
      if (got.error) typedError = got.error;
      else if (!v.pot.includes(got.rank)) typedError = `${cardText(got.rank, v.prize_suit)} is not on display`;
      else selected = [got.rank];
    } else if (canBid(v)) {
      const mine = v.players[v.you], tokens = text.replace(/[,+]/g, " ").split(/\s+/).filter(Boolean);
      const got = CT.parseBid(text, Math.min(tokens.length, v.ruleset.cards_per_bid) || 1, v.ruleset.cards, mine.suit, v.hand);
      if (tokens.length > v.ruleset.cards_per_bid) typedError = `bid exactly ${v.ruleset.cards_per_bid} card(s), you typed ${tokens.length}`;
      else if (got.error) typedError = got.error;
      else selected = got.cards;
    }
    render(last);
  }

  function confirmTyped() {
    if (!last || sending) return;
    const v = last.view;
    if ($("bidtype").value.trim()) typed();
    if (typedError) { $("hint").textContent = typedError; return; }
    if (v.phase === "choose" && v.chooser === v.you && selected.length === 1) act({ choose: selected[0] });
    else if (canBid(v) && selected.length === v.ruleset.cards_per_bid) act({ bid: selected.slice() });
  }

  function clearTyped() {
    $("bidtype").value = "";
    typedError = "";
    selected = [];
    if (last) render(last);
  }

  $("bidtype").addEventListener("input", typed);
  $("bidtype").addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); confirmTyped(); }
    else if (e.key === "Escape") { e.preventDefault(); clearTyped(); }
  });
  // Keys anywhere on the page: a card's first character starts typing a bid; Enter confirms a
  // selection; Escape clears it. During the reveal's pause any key goes on to the next round first.
  document.addEventListener("keydown", (e) => {
    if (["Shift", "Control", "Alt", "Meta", "Tab"].includes(e.key)) return;
    if (pauseId !== null) {
      endPause();
      if (!/^[0-9ajqkt]$/i.test(e.key) || CT.typingInto(e.target)) { e.preventDefault(); return; }
    }
    if (e.ctrlKey || e.metaKey || e.altKey || !last || CT.typingInto(e.target)) return;
    const v = last.view, choosing = v.phase === "choose" && v.chooser === v.you;
    if (e.key === "Escape") { clearTyped(); return; }
    if (/^[0-9ajqkt]$/i.test(e.key) && (canBid(v) || choosing) && !sending) {
      e.preventDefault();
      const box = $("bidtype");
      box.focus();
      box.value += e.key;
      typed();
      return;
    }
    if (e.key === "Enter" && !(e.target instanceof Element && e.target.closest("button, a, summary"))) { e.preventDefault(); confirmTyped(); }
  });
  // a click during the pause goes on to the next round (and does nothing else)
  document.addEventListener("click", (e) => {
    if (pauseId === null || (e.target instanceof Element && e.target.closest("#sound, label"))) return;
    e.preventDefault();
    e.stopPropagation();
    endPause();
  }, true);

  $("bidbtn").addEventListener("click", () => { if (last && selected.length) act({ bid: selected.slice() }); });
  $("nextbtn").addEventListener("click", async () => {
    const err = await CT.send({ type: "next" });
    if (err) showError(err.message);
  });
  CT.onState = (msg) => {
    if (pauseId !== null) { pending = msg; return; }
    // a newly resolved round: turn the bids over; against a bot hold this view for a moment
    const r = revealOf(msg), fresh = last !== null && r && `${msg.game_no}:${r.number}` !== shownReveal;
    if (fresh && msg.view.you !== null && msg.seats.some((s) => s.bot)) {
      renderReveal(msg, true);
      // the table stays on the revealed round meanwhile: every bid is in, face down here
      $("bids").replaceChildren(...r.bids.map((b, s) => el("div", { class: "bidslot", "data-seat": s },
        el("div", { class: "cards" }, ...b.map(() => el("div", { class: "card back", "aria-hidden": "true" }))),
        el("span", { text: `${s === msg.view.you ? "You" : msg.seats[s].name}: face down` }))));
      $("status").textContent = `Round ${r.number} revealed`;
      $("hint").textContent = "";
      pending = msg;
      startPause();
      return;
    }
    if (fresh) renderReveal(msg, true);
    accept(msg);
  };
  CT.onError = (msg) => { if (msg.ref === undefined) showError(msg.message); };
  CT.onStatus = (s) => $("conn").classList.toggle("hidden", s === "online");
  CT.connect();
})();
