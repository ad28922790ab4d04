"""Hard negatives: families of distinct pages that one site template makes look alike.

:mod:`.families` lists them; ``benchmarks/hard_negatives.py`` measures how many pages of each a
crawl loses as near duplicates.
"""
