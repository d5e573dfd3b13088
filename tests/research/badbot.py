"""A misbehaving protocol bot for tests: `python badbot.py MODE`.

Modes (each misbehaves at its first bid request, after a correct handshake):
garbage, hang, crash, flood, longline, illegal; silent (never completes the handshake),
badhello (garbage instead of its identity); superscript (``bid ²``); extra (a legal bid,
then one more ``bid`` line); early (bids at ``round``, before being asked); forkexit
(forks a child that keeps stdout open and sleeps, then exits; the child's pid is written
to the file named by $BADBOT_PIDS); legal (plays legal bids, writing every line it
receives to the file named by $BADBOT_LOG, and its pid to $BADBOT_PIDS); markup (an
identity and a reply holding Rich markup and a terminal escape); daemon (at its start,
double-forks a grandchild that calls ``setsid()``, lets go of stdin/stdout/stderr, writes its
pid to $BADBOT_PIDS and sleeps; the program itself then plays legal bids); manyoptions
(declares 100,000 options); twiceoption (declares one option twice).
"""

import os
import sys
import time


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def note_pid(pid):
    if os.environ.get("BADBOT_PIDS"):
        with open(os.environ["BADBOT_PIDS"], "a") as f:
            f.write(f"{pid}\n")


def daemonize():
    """The classic double fork: the grandchild leads a new session, its parent exits at once.
    The program goes on once the grandchild has written its pid."""
    noted, note = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            note_pid(os.getpid())
            os.write(note, b"x")
            time.sleep(3600)
        os._exit(0)
    os.close(note)
    os.read(noted, 1)
    os.close(noted)
    os.wait()


def main(mode):
    hand, seat = [], 0
    if mode in ("legal", "slow"):
        note_pid(os.getpid())
    if mode == "daemon":
        daemonize()
        mode = "legal"
    for raw in sys.stdin:
        if mode == "legal" and os.environ.get("BADBOT_LOG"):
            with open(os.environ["BADBOT_LOG"], "a") as f:
                f.write(raw)
        words = raw.split()
        if not words:
            continue
        if words[0] == "newgame":
            seat = int(words[2])
            cards = int(next(w for w in words if w.startswith("cards=")).split("=")[1])
            hand = list(range(1, cards + 1))
        elif words[0] == "reveal":
            for card in words[1 + seat].split("+"):
                if int(card) in hand:
                    hand.remove(int(card))
        elif words[0] == "round" and mode == "early":
            send(f"bid {hand[0]}")
        if words[0] == "cardtable":
            if mode == "silent":
                time.sleep(3600)
            if mode == "badhello":
                send("hello, who are you?")
            send("id name [/x] \x1b[2Jbad" if mode == "markup" else f"id name bad-{mode}")
            if mode == "manyoptions":
                for i in range(100_000):
                    send(f"option name o{i} type string default {'x' * 100}")
            if mode == "twiceoption":
                send("option name margin type int default 1")
                send("option name margin type int default 2")
            send("ready")
        elif words[0] == "isready":
            send("readyok")
        elif words[0] == "go":
            if mode == "markup":
                send("[/bold] \x1b[2J")
            elif mode == "garbage":
                send("hello there, I am not a bid")
            elif mode == "hang":
                time.sleep(3600)
            elif mode == "crash":
                sys.stderr.write("Traceback: something broke\n")
                sys.exit(3)
            elif mode == "flood":
                while True:
                    send("info " + "x" * 50)
            elif mode == "longline":
                sys.stdout.write("bid " + "1" * 100000)
                sys.stdout.flush()
                time.sleep(3600)
            elif mode == "illegal":
                send("bid 99" if words[1] == "bid" else "choose 99")
            elif mode == "superscript":
                send("bid \u00b2")
            elif mode == "extra":
                send(f"bid {hand[0]}")
                send(f"bid {hand[-1]}")
            elif mode == "forkexit":
                pid = os.fork()
                if pid == 0:
                    time.sleep(3600)
                    os._exit(0)
                note_pid(pid)
                os._exit(0)
            elif mode == "legal":
                if words[1] == "bid":
                    send(f"bid {hand[0]}")
                else:
                    send(f"choose {words[words.index('display') + 1]}")
            elif mode == "slow":
                time.sleep(0.2)
                send("bid " + str(hand[0]))
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main(sys.argv[1])
