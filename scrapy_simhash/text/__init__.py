"""Text -> weighted features, the fingerprint's input, one job per module.

- :mod:`.normalize`: NFKC, case folding, whitespace, optional Traditional -> Simplified;
- :mod:`.chinese`: jieba's cut of Chinese runs (compiled, or rjieba);
- :mod:`.tokenize`: content tokens, word shingles, character n-grams;
- :mod:`.stopwords`: the words left out;
- :mod:`.hashing`: the hashes of a text's content tokens, without a str per token;
- :mod:`.weights`: tf, log-tf and tf-idf weights.

:mod:`scrapy_simhash.features` re-exports their public names.
"""
