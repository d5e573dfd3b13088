#!/usr/bin/env python3
"""An example Goofspiel bot speaking the cardtable bot protocol (docs/protocol.md).

Strategy: bid the card ``margin`` (an option, default 1) above the pot's value
when it holds it, else the closest card; fill a multi-card bid with its lowest cards; with open prizes,
take the most valuable prize. With probability ``noise`` (an option, default 0) a bid
is a random legal one instead. The random generator is reseeded at every game from the
``game id ... seed N`` line, so a game plays the same whichever games came before it
(tournaments on any backend reproduce). Standard library only.

Try it:  cardtable bot-check "python examples/protocol_bot.py"
"""

import random
import sys


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    state = {
        "hand": set(),
        "per_bid": 1,
        "high_ace": False,
        "cards": 13,
        "pot": [],
        "margin": 1,
        "noise": 0.0,
        "rng": random.Random(0),
    }
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] == "quit":
            return
        try:
            handle(words[0], words[1:], state)
        except (IndexError, KeyError, ValueError):
            # a line this bot cannot read: say so (logged by the host) and keep going
            send("info ignored a malformed line: " + ascii(raw.strip())[:60])


def handle(cmd, args, state):
    """Answer one host line; ``state`` holds the bot's view of the game."""
    hand, per_bid, high_ace = state["hand"], state["per_bid"], state["high_ace"]
    cards, pot, margin = state["cards"], state["pot"], state["margin"]
    if cmd == "cardtable":
        send("id name Example Python bot")
        send("id author cardtable examples")
        send("option name margin type int default 1")
        send("option name noise type float default 0")
        send("ready")
    elif cmd == "setoption":  # setoption name margin value 2
        if args[1] == "margin":
            state["margin"] = int(args[3])
        elif args[1] == "noise":
            state["noise"] = float(args[3])
    elif cmd == "isready":
        send("readyok")
    elif cmd == "newgame":
        rules = dict(item.split("=", 1) for item in args[args.index("ruleset") + 1 :])
        state["cards"] = int(rules["cards"])
        state["per_bid"] = int(rules["bid"])
        state["high_ace"] = rules["ace"] == "high"
        state["hand"] = set(range(1, state["cards"] + 1))
    elif cmd == "game":  # game id 0-1-3-0 seed 2840720121: right after newgame
        state["rng"] = random.Random(int(args[args.index("seed") + 1]))
    elif cmd == "round":
        state["pot"] = [int(w) for w in args[args.index("pot") + 1 : args.index("remaining")]]
    elif cmd == "go" and args[0] == "bid":

        def value(c: int) -> int:
            return cards + 1 if (c == 1 and high_ace) else c

        target = sum(value(p) for p in pot) + margin
        first = min(sorted(hand), key=lambda c: (abs(value(c) - target), c))
        rest = sorted(c for c in hand if c != first)[: per_bid - 1]
        bid = [first] + rest
        if state["rng"].random() < state["noise"]:
            bid = state["rng"].sample(sorted(hand), per_bid)
        hand.difference_update(bid)
        send("bid " + " ".join(map(str, sorted(bid))))
    elif cmd == "go" and args[0] == "choose":
        display = [int(w) for w in args[args.index("display") + 1 :]]
        send(f"choose {max(display)}")
    # round updates (points, reveal, result, taken, gameover) and lines this bot does not
    # know need no answer: a bot ignores them, so the host may add information lines


if __name__ == "__main__":
    main()
