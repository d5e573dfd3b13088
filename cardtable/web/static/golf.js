// Golf play screen: renders the per-viewer view (GolfView.to_dict) the server sends.
// Buttons for turn actions; a mode (swap, peek, steal, pass, snap) decides what
// clicking a grid card does. From the keyboard: every button and every card that can be
// chosen is a real button (Tab, Enter); letters press the buttons, 1-9 choose a position.
"use strict";

(() => {
  const { el, rankName } = CT;
  const $ = (id) => document.getElementById(id);
  let last = null, mode = null, stealFrom = null, sending = false, timerId = null;
  let lastEvent = null, announcedTurn = null;

  const showError = CT.showError;

  // Engine messages name seats P1, P2, ...: say names instead, and "you"/"your" for this seat.
  function withNames(text) {
    if (!last) return text;
    const names = last.seats.map((s) => s.name), me = last.view.you;
    return text.replace(/\bP(\d)\b('s)?(?!:)/g, (all, d, poss) => {
      const s = Number(d) - 1;
      if (s < 0 || s >= names.length) return all;
      if (s === me) return poss ? "your" : "you";
      return names[s] + (poss || "");
    });
  }

  async function act(action) {
    sending = true;
    const err = await CT.send({ type: "act", action });
    sending = false;
    stealFrom = null;
    if (err) showError(withNames(err.message)); else showError("");
    render(last);
  }

  // One move in words, second person for this seat (as cardtable/golf/narrate.py in the terminal).
  function describe(e, names, me) {
    const p = e.player, a = e.action, card = e.card ? rankName(e.card) : null;
    const who = p === me ? "You" : names[p];
    const whose = (o) => (o === me ? "your" : o === p ? "their" : `${names[o]}'s`);
    const own = whose(p);
    switch (e.type) {
      case "draw": return `${who} drew ${card || "a card"}`;
      case "end": return `${who} ended the game early: everyone else has one last turn`;
      case "discard": return `${who} discarded ${card}`;
      case "swap": return `${who} put the drawn card at ${own} position ${a.pos + 1}; ${card} goes to the discard pile`;
      case "peek": return `${who} looked at ${own} position ${a.pos + 1}` + (card ? `: ${card}` : "");
      case "steal": return `${who} swapped ${own} position ${a.pos + 1} with ${whose(a.target)} position ${a.target_pos + 1} (nobody looks)`;
      case "snap": {
        const place = `${whose(a.owner)} position ${a.pos + 1}`;
        if (e.correct) return `${who} snapped ${place}: ${card} — right`;
        const pen = e.penalty ? `; penalty: ${e.penalty} card${e.penalty > 1 ? "s" : ""} face down at ${own} position ${e.to_pos + 1}` : "; no penalty card (the draw pile is empty)";
        return `${who} snapped ${place}: ${card} — wrong, turned back${pen}`;
      }
      case "pass": return `${who} passed ${own} position ${a.pos + 1} face down into ${whose(e.to_seat)} position ${e.to_pos + 1}` + (card ? ` (${card})` : "");
      case "nopass": return `${who} passed nothing to ${e.to_seat === me ? "you" : names[e.to_seat]}`;
      default: return `${who}: ${e.text}`;
    }
  }

  // A card; extra.tag "button" makes it a real button (for a card that can be chosen now).
  function face(rank, extra = {}) {
    const { tag = "div", ...rest } = extra;
    if (tag === "button") rest.type = "button";
    else if (rest["aria-label"]) rest.role = "img";
    if (rank === 0) return el(tag, { title: "face down", ...rest, class: "card back " + (rest.class || "") });
    return el(tag, { title: rankName(rank), ...rest, class: "card " + (rest.class || ""), "data-rank": rank },
      el("span", { class: "rank", "aria-hidden": "true", text: rankName(rank) }));
  }

  function legal(v, type) { return v.legal_actions.filter((a) => a.type === type); }

  function modes(v) {
    const out = [];
    for (const t of ["swap", "peek", "steal", "pass"]) if (legal(v, t).length) out.push(t);
    if (v.legal_snaps && v.legal_snaps.length) out.push("snap");
    return out;
  }

  function clickSlot(owner, pos) {
    const v = last.view, me = v.you;
    if (sending || me === null) return;
    if (mode === "snap") { act({ type: "snap", owner, pos }); return; }
    if (owner === me && (mode === "swap" || mode === "peek" || mode === "pass")) { act({ type: mode, pos }); return; }
    if (mode === "steal") {
      if (owner === me) { stealFrom = pos; render(last); return; }
      if (stealFrom !== null) act({ type: "steal", pos: stealFrom, target: owner, target_pos: pos });
    }
  }

  // The game's end in words ("ended early by Ann", "the draw pile ran out").
  function endText(res, names, you) {
    if (res.reason === "early" && res.ended_by !== null) return `ended early by ${res.ended_by === you ? "you" : names[res.ended_by]}`;
    return { pile: "the draw pile ran out", grid: "a grid is empty" }[res.reason] || `ended (${res.reason})`;
  }

  // What the player whose turn it is does now; the status line and the hint both use it.
  function stepText(v, mine) {
    if (v.phase === "draw") {
      const canEnd = mine ? legal(v, "end").length > 0 : v.ended_by === null && v.own_snaps[v.actor] >= v.ruleset.early_end_min;
      return canEnd ? "draw a card or end early" : "draw a card";
    }
    return { drawn: "place or discard the drawn card", pass: "pass a card to the snapped player, or pass nothing" }[v.phase] || v.phase;
  }

  function statusText(msg) {
    const v = msg.view, names = msg.seats.map((s) => s.name), me = v.you;
    if (v.phase === "over") return "";  // the "Game over" panel says it (once)
    const step = stepText(v, v.actor === me);
    return v.actor === me ? `Your turn: ${step}` : `${names[v.actor]}'s turn: ${step}`;
  }

  // The line under the buttons: what clicking does in the chosen mode, else what to press.
  function hintText(v, names) {
    const me = v.you;
    if (me === null) return "Watching";
    if (v.phase === "over") return "";
    if (mode) return HINTS[mode]();
    if (v.actor === me) {
      if (v.phase === "draw") return legal(v, "end").length ? "Your turn: press Draw to take the top card of the pile, or End early" : "Your turn: press Draw to take the top card of the pile";
      if (v.phase === "drawn") return "Your turn: press Discard, or choose Swap…";
      return `Your turn: ${stepText(v, true)}`;
    }
    return `waiting for ${names[v.actor]}…`;
  }

  const HINTS = {
    swap: () => "swap: click one of your cards (or press its number) to put the drawn card there",
    peek: () => "peek: click one of your cards (or press its number) to look at it",
    steal: () => stealFrom === null ? "steal: click one of your cards (or press its number), then an opponent's card" : "now click an opponent's card (or press its number)",
    pass: () => "pass: click one of your cards (or press its number) to pass it face down, or press Pass nothing",
    snap: () => "snap: click a card matching the discard (yours by number, or an opponent's card), before anyone else",
  };

  function render(msg) {
    if (!msg) return;
    const v = msg.view, me = v.you, names = msg.seats.map((s) => s.name);
    document.body.dataset.phase = v.phase;
    document.body.dataset.turn = v.turn;
    document.body.dataset.actor = v.actor === null ? "" : v.actor;
    const m = msg.match;
    $("matchline").textContent = `match ${m.format} · game ${m.game}` + (m.scores.length ? ` · totals ${m.totals.map((t) => -t).join("–")}` : "");
    $("status").textContent = statusText(msg);
    $("status").classList.toggle("hidden", v.phase === "over");
    $("turnline").textContent = `turn ${v.turn} · own cards snapped ${v.own_snaps.join("/")} (end early after ${v.ruleset.early_end_min})` + (v.ended_by !== null ? ` · ${v.ended_by === me ? "you" : names[v.ended_by]} ended early` : "");
    // an empty draw pile is an empty slot, not a card back
    $("pile").replaceChildren(v.draw_pile > 0 ? face(0, { id: "pilecard" }) : el("div", { class: "slot-hole", id: "pilecard", title: "the draw pile is empty" }),
      el("span", { class: "mini", id: "pilecount", text: v.draw_pile > 0 ? ` ${v.draw_pile}` : " empty" }));
    $("discard").replaceChildren(v.discard.length ? face(v.discard[v.discard.length - 1], { id: "top" }) : el("span", { class: "mini", text: "empty" }));
    $("drawn").replaceChildren(v.holding ? face(v.drawn === null ? 0 : v.drawn, { id: "drawncard" }) : el("span", { class: "mini", text: "—" }));

    // action buttons and modes
    const available = modes(v);
    if (!available.includes(mode)) mode = available.length ? available[0] : null;
    const buttons = [];
    for (const [t, label] of Object.entries(SIMPLE)) {
      if (legal(v, t).length) buttons.push(el("button", { id: `btn-${t}`, disabled: sending, "aria-keyshortcuts": KEYS[t], onclick: () => act({ type: t }) }, label + " ", el("kbd", { "aria-hidden": "true", text: KEYS[t] })));
    }
    for (const t of available) {
      buttons.push(el("button", { id: `mode-${t}`, class: `secondary ${t}` + (mode === t ? " active" : ""), "aria-pressed": mode === t ? "true" : "false", "aria-keyshortcuts": KEYS[t],
        onclick: () => chooseMode(t) }, MODES[t] + " ", el("kbd", { "aria-hidden": "true", text: KEYS[t] })));
    }
    CT.replaceKeepingFocus($("buttons"), buttons);
    $("hint").textContent = hintText(v, names);

    // grids: you first
    const order = me === null ? v.grids.map((_, s) => s) : [me, ...v.grids.map((_, s) => s).filter((s) => s !== me)];
    const boxes = order.map((s) => {
      const seat = msg.seats[s];
      const rows = {};
      v.grids[s].forEach((r, pos) => { (rows[v.slot_rows[s][pos]] = rows[v.slot_rows[s][pos]] || []).push([r, pos]); });
      const cols = Math.max(...Object.values(rows).map((x) => x.length));
      const grid = el("div", { class: "grid", style: `grid-template-columns: repeat(${cols}, var(--card-w))`, "data-seat": s });
      for (const key of Object.keys(rows).sort((a, b) => a - b)) {
        const row = rows[key];
        row.forEach(([r, pos]) => {
          if (r === null) { grid.append(el("div", { class: "slot-hole" })); return; }
          const targetable = isTarget(v, s, pos);
          const seen = v.seen_by[s][pos];
          const label = `${s === me ? "your" : names[s] + "'s"} position ${pos + 1}: ${r === 0 ? "face down" : rankName(r)}`
            + (seen.length ? `, seen by ${seen.map((x) => (x === me ? "you" : names[x])).join(" and ")}` : "");
          const card = face(r, { tag: targetable ? "button" : "div", "aria-label": label, "data-key": `${s}:${pos}`,
            class: (targetable ? "target" : "") + (s === me && stealFrom === pos && mode === "steal" ? " selected" : ""), "data-owner": s, "data-pos": pos, onclick: () => clickSlot(s, pos) });
          if (seen.length) card.append(el("span", { class: "seenby", "aria-hidden": "true", text: seen.map((x) => x + 1).join(",") }));
          grid.append(card);
        });
        for (let i = row.length; i < cols; i++) grid.append(el("div"));
      }
      const score = v.result ? ` · ${v.result.scores[s]} pts` : "";
      return el("div", { class: "panel player" + (s === me ? " me" : "") },
        el("div", {}, el("span", { class: "dot" + (seat.connected ? " on" : "") }),
          el("span", { class: "name", text: (s === me ? "You" : seat.name) + (seat.bot && !/\bbot\b/i.test(seat.name) ? " (bot)" : "") + (v.actor === s ? " ◀" : "") }),
          el("span", { class: "mini", text: score })), grid);
    });
    CT.replaceKeepingFocus($("grids"), boxes, () => $("buttons").querySelector("button:not([disabled])") || $("grids").querySelector("button"));
    $("seenlegend").textContent = "The small numbers on a card are the seats that have seen it: "
      + msg.seats.map((seat, s) => `${s + 1} = ${s === me ? "you" : seat.name}`).join(", ") + ".";

    // moves
    const items = v.events.slice(-40).reverse().map((e) => el("li", { value: e.n, text: describe(e, names, me) }));
    $("events").replaceChildren(...items);

    renderTimer(msg);
    renderEnd(msg);
    announce(msg, names);
  }

  // Screen readers hear each new move (the bots' too) and whose turn it is when that changes.
  function announce(msg, names) {
    const v = msg.view, me = v.you;
    const fresh = lastEvent === null ? [] : v.events.filter((e) => e.n > lastEvent);
    if (v.events.length) lastEvent = v.events[v.events.length - 1].n;
    else if (lastEvent === null) lastEvent = 0;
    for (const e of fresh.slice(-4)) CT.announce(describe(e, names, me));
    const key = `${msg.game_no}:${v.turn}:${v.phase}:${v.actor}`;
    if (key === announcedTurn) return;
    announcedTurn = key;
    if (v.phase === "over") { const w = document.getElementById("winner"); CT.announce(`Game over. ${w ? w.textContent : ""}`); }
    else CT.announce(statusText(msg));
  }

  const SIMPLE = { draw: "Draw", end: "End early", discard: "Discard", nopass: "Pass nothing" };
  const MODES = { swap: "Swap in…", peek: "Peek (Detective)…", steal: "Steal (Thief)…", pass: "Pass a card…", snap: "Snap a match…" };
  const KEYS = { draw: "D", end: "E", discard: "X", nopass: "N", swap: "S", peek: "P", steal: "T", pass: "G", snap: "K" };

  function chooseMode(t) { mode = t; stealFrom = null; render(last); }

  // Can the card at (s, pos) be chosen now, in the current mode?
  function isTarget(v, s, pos) {
    const me = v.you;
    if (me === null || v.grids[s][pos] === null) return false;
    if (mode === "snap") return true;
    if (s === me) return ["swap", "peek", "pass", "steal"].includes(mode) && !(mode === "swap" && pos === v.power_pos);
    return mode === "steal" && stealFrom !== null;
  }

  // Letters press the buttons; 1-9 choose a position: of your grid, or in a steal after your own
  // card of the (only) opponent's grid.
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !last || CT.typingInto(e.target)) return;
    const v = last.view, me = v.you;
    if (me === null) return;
    const key = e.key.toUpperCase();
    if (e.key === "Escape" && stealFrom !== null) { stealFrom = null; render(last); return; }
    for (const [t, k] of Object.entries(KEYS)) {
      if (key !== k) continue;
      const btn = document.getElementById(SIMPLE[t] ? `btn-${t}` : `mode-${t}`);
      if (btn && !btn.disabled) { e.preventDefault(); btn.click(); btn.focus({ preventScroll: true }); }
      return;
    }
    if (!/^[1-9]$/.test(e.key) || !mode || sending) return;
    const pos = Number(e.key) - 1;
    let owner = me;
    if (mode === "steal" && stealFrom !== null) {
      const others = v.grids.map((_, s) => s).filter((s) => s !== me);
      if (others.length !== 1) return;  // three players: Tab to the card
      owner = others[0];
    }
    if (!isTarget(v, owner, pos)) return;
    e.preventDefault();
    clickSlot(owner, pos);
  });

  function renderTimer(msg) {
    if (timerId) { clearInterval(timerId); timerId = null; }
    const t = msg.timer;
    if (!t || t.left === null || msg.view.phase === "over") { $("timer").textContent = ""; return; }
    const deadline = Date.now() + t.left * 1000;
    const tick = () => { $("timer").textContent = `⏱ ${Math.max(0, Math.ceil((deadline - Date.now()) / 1000))}s`; };
    tick();
    timerId = setInterval(tick, 250);
  }

  async function renderEnd(msg) {
    const v = msg.view, end = $("end");
    end.classList.toggle("hidden", v.phase !== "over");
    if (v.phase !== "over") return;
    const names = msg.seats.map((s) => s.name), res = v.result, m = msg.match;
    const low = Math.min(...res.scores);
    const winners = res.scores.map((x, s) => x === low ? s : null).filter((s) => s !== null);
    const who = winners.length > 1 ? "Draw" : (winners[0] === v.you ? "You win!" : `${names[winners[0]]} wins`);
    $("result").replaceChildren(el("div", { id: "winner", text: `${who} (fewest points) — ${res.scores.map((x, s) => `${s === v.you ? "You" : names[s]} ${x}`).join(" · ")} · ${endText(res, names, v.you)}` }));
    const btn = $("nextbtn");
    btn.classList.toggle("hidden", v.you === null || !m.next);
    btn.textContent = m.next === "rematch" ? "Rematch" : "Next game";
    $("download").href = `/api/rooms/${encodeURIComponent(msg.room)}/record?match=${m.match_no}`;
    const f = v.fairness;
    const hash = await CT.sha256hex(f.seed);
    // the commitment this browser kept from the game's start (across reloads), not the final view's copy
    const seen = CT.seenCommit(msg.game_no) || v.seed_commit;
    const ok = (hash === null ? f.commit_ok : hash === seen) && f.order_ok;
    $("fair").replaceChildren(el("div", { id: "fair-commit", class: ok ? "ok" : "bad", text: `${ok ? "✓" : "✗"} SHA-256 of the seed ${f.seed} matches the commitment and deals this game's cards · cardtable verify FILE` }));
  }

  $("nextbtn").addEventListener("click", async () => { const err = await CT.send({ type: "next" }); if (err) showError(err.message); });
  CT.onState = (msg) => {
    if (msg.view.seed_commit && !msg.view.fairness) CT.keepCommit(msg.game_no, msg.view.seed_commit);
    last = msg;
    render(msg);
  };
  CT.onError = (msg) => { if (msg.ref === undefined) showError(msg.message); };
  CT.onStatus = (s) => $("conn").classList.toggle("hidden", s === "online");
  CT.connect();
})();
