// A play page opened with an invite (or seat) link the server turned down (common.js sends the
// "ct-refused" event: bad_claim = used up or replaced, bad_token = a released or unknown seat token):
// say so plainly, offer to watch the room as a spectator (CT.watch()), and say how to get a new link.
// Shared by every play page; it needs only a <main> and, if present, #status.
"use strict";

(() => {
  const { el } = CT;

  function explain(code) {
    if (code === "bad_claim") {
      return [
        "Each invite link takes a seat once, and this one was already used (perhaps by you, in another browser) or " +
        "the game's creator replaced it with a new one.",
        "To play, ask the person who created the game for a new link: while nobody holds the seat, they can make one " +
        "with the “new link” button on the page where they created the game. If someone already took the seat, it is theirs.",
      ];
    }
    return [
      "This seat link no longer works here: the seat was released (a lobby seat nobody joined in time) or the link is not for this room.",
      "Ask the game's creator for an invite link, or look for the game in the lobby.",
    ];
  }

  document.addEventListener("ct-refused", (ev) => {
    const { code } = ev.detail;
    const status = document.getElementById("status");
    if (status) status.textContent = code === "bad_claim" ? "Invite link used up" : "Seat link not valid";
    const [what, how] = explain(code);
    const watch = el("button", { type: "button", id: "watchbtn", text: "Watch this game as a spectator" });
    const box = el("section", { class: "panel", id: "refused", role: "alert", "data-code": code },
      el("h2", { text: code === "bad_claim" ? "This invite link no longer works" : "This seat link no longer works" }),
      el("p", { text: what }),
      el("p", { class: "mini", text: how }),
      el("div", {}, watch, " ", el("a", { href: "/", text: "Back to the lobby" })));
    watch.addEventListener("click", () => {
      box.remove();
      if (status) status.textContent = "Connecting…";
      CT.watch();
    });
    document.getElementById("refused")?.remove();
    document.querySelector("main").prepend(box);
    watch.focus();
  });
})();
