#!/usr/bin/env node
// An example Goofspiel bot for Node speaking the cardtable bot protocol
// (docs/protocol.md). Strategy: a random legal bid from a small seeded
// generator, the most valuable prize when choosing. The generator is reseeded
// at every game from the "game id ... seed N" line (mixed with the option
// "seed"), so a game plays the same whichever games came before it.
// Try it:  cardtable bot-check "node examples/protocol_bot.js"
"use strict";
const readline = require("readline");

let hand = [], perBid = 1, optionSeed = 12345, state = 12345;
function rand() { // a linear congruential generator modulo 2^31, in exact 32-bit integer steps
  state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
  return state / 2147483648;
}
function send(line) { process.stdout.write(line + "\n"); }

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (raw) => {
  const words = raw.trim().split(/\s+/);
  const cmd = words[0], args = words.slice(1);
  if (cmd === "cardtable") {
    send("id name Example Node bot");
    send("id author cardtable examples");
    send("option name seed type int default 12345");
    send("ready");
  } else if (cmd === "setoption" && args[1] === "seed") {
    optionSeed = parseInt(args[3], 10) || 1;
    state = optionSeed;
  } else if (cmd === "isready") {
    send("readyok");
  } else if (cmd === "newgame") {
    const rules = {};
    for (const item of args.slice(args.indexOf("ruleset") + 1)) {
      const [k, v] = item.split("=");
      rules[k] = v;
    }
    perBid = parseInt(rules.bid, 10);
    hand = [];
    for (let c = 1; c <= parseInt(rules.cards, 10); c++) hand.push(c);
  } else if (cmd === "game") { // game id 0-1-3-0 seed 2840720121: right after newgame
    state = (Number(args[args.indexOf("seed") + 1]) ^ optionSeed) & 0x7fffffff;
  } else if (cmd === "go" && args[0] === "bid") {
    const bid = [];
    for (let i = 0; i < perBid; i++) {
      const j = Math.floor(rand() * hand.length);
      bid.push(hand[j]);
      hand.splice(j, 1);
    }
    bid.sort((a, b) => a - b);
    send("bid " + bid.join(" "));
  } else if (cmd === "go" && args[0] === "choose") {
    const display = args.slice(args.indexOf("display") + 1).map(Number);
    send("choose " + Math.max(...display));
  } else if (cmd === "quit") {
    rl.close();
    process.exit(0);
  }
});
