#!/usr/bin/env node
// An example Goofspiel bot for Node speaking the cardtable bot protocol
// (docs/protocol.md). Strategy: a random legal bid from a small seeded
// generator (option "seed"), the most valuable prize when choosing.
// Try it:  cardtable bot-check "node examples/protocol_bot.js"
"use strict";
const readline = require("readline");

let hand = [], perBid = 1, seed = 12345;
function rand() { // a small linear congruential generator: reproducible games
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
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
    seed = parseInt(args[3], 10) || 1;
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
