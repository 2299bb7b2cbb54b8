"""xtvm: a hackable deep-learning compiler on xDSL."""
