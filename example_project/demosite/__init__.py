"""A small generated news site with near-duplicate clusters, served on 127.0.0.1 for the demo."""
