"""The web app's routes, one module per concern: table, review, setup, stats, games, live."""
