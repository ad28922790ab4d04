"""Text -> weighted features: the public names of :mod:`scrapy_simhash.text`, where the code
lives now (normalisation, tokenisation, jieba's cut, token hashes, weights)."""

from scrapy_simhash.text.chinese import has_cjk
from scrapy_simhash.text.hashing import token_hash_batch, token_hash_counts
from scrapy_simhash.text.normalize import normalize, traditional_to_simplified
from scrapy_simhash.text.stopwords import STOP_WORDS
from scrapy_simhash.text.tokenize import (
    FEATURE_KINDS,
    MAX_TOKEN_CHARS,
    char_ngrams,
    count_tokens,
    is_content_token,
    raw_tokens,
    tokenize,
    word_shingles,
)
from scrapy_simhash.text.weights import WEIGHTINGS, idf_weight, weigh

__all__ = [
    "FEATURE_KINDS",
    "MAX_TOKEN_CHARS",
    "STOP_WORDS",
    "WEIGHTINGS",
    "char_ngrams",
    "count_tokens",
    "has_cjk",
    "idf_weight",
    "is_content_token",
    "normalize",
    "raw_tokens",
    "token_hash_batch",
    "token_hash_counts",
    "tokenize",
    "traditional_to_simplified",
    "weigh",
    "word_shingles",
]
