"""Game-agnostic platform parts: the bot interface and registry, matches, storage.

Nothing in this package knows the rules of any game.
"""
