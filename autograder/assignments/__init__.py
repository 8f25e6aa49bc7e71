"""The assignments, one package each: config.yaml, public and hidden tests, fixtures and handout data."""
