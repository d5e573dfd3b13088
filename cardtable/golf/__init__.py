"""Golf with Detective and Thief (RULES.md, Golf): rules engine, knowledge, bots, records, terminal play."""
