"""CLI command modules, one per concern; each defines ``register(app)``."""
