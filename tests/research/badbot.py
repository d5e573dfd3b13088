"""A misbehaving protocol bot for tests: `python badbot.py MODE`.

Modes (each misbehaves at its first bid request, after a correct handshake):
garbage, hang, crash, flood, longline, illegal; silent (never completes the handshake),
badhello (garbage instead of its identity).
"""

import sys
import time



def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(mode):
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] == "cardtable":
            if mode == "silent":
                time.sleep(3600)
            if mode == "badhello":
                send("hello, who are you?")
            send(f"id name bad-{mode}")
            send("ready")
        elif words[0] == "isready":
            send("readyok")
        elif words[0] == "go":
            if mode == "garbage":
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
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main(sys.argv[1])
