"""Golf bots, by name (for :func:`cardtable.platform.bot.load_bot`)."""

BOTS = {
    "random": "cardtable.golf.bots.random_bot:RandomBot",
    "heuristic": "cardtable.golf.bots.heuristic:HeuristicBot",
    "search": "cardtable.golf.bots.search:SearchBot",
}
