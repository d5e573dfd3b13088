"""Names vulture (``vulture cardtable vulture_whitelist.py``, [tool.vulture] in pyproject.toml)
would report as unused but that something outside Python's call graph uses: frameworks that call
by registration (Typer commands, FastAPI routes), and signatures fixed by a caller's protocol.

Each line names one such attribute or parameter; this file is read by vulture, never imported.
"""

# Signal handlers: Python calls them as handler(signum, frame); the frame is not needed
# (cardtable/platform/keeper.py _on_signal, cardtable/platform/tournament.py _kill_programs_and_exit).
frame
# Context managers: Python calls __exit__(exc_type, exc, tb); the traceback is not needed
# (cardtable/web/storage.py _Tx.__exit__).
tb
