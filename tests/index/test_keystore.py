import random

import pytest

from scrapy_simhash.index.keystore import BLOCK_KEYS, KeyStore


def _keys(count: int) -> list[str]:
    rng = random.Random(5)
    shapes = ["https://news.example.com/2026/11/{}/story-{}.html", "ключ-{}-{}", "", "页面{}?q={}"]
    return [rng.choice(shapes).format(n, rng.randrange(10**6)) for n in range(count)]


@pytest.mark.parametrize("batches", [[1] * 300, [BLOCK_KEYS], [5, BLOCK_KEYS - 5, 1], [700, 3, 41]])
def test_keys_read_back_by_row_whatever_the_batches(batches):
    keys = _keys(sum(batches))
    store, position = KeyStore(), 0
    for size in batches:
        batch = [key.encode("utf-8") for key in keys[position : position + size]]
        if size == 1:
            store.append(batch[0])
        else:
            store.extend(batch)
        position += size
    assert len(store) == len(keys)
    order = list(range(len(keys)))
    random.Random(1).shuffle(order)  # reads jump between blocks and the tail
    assert [store.get(row) for row in order] == [keys[row] for row in order]


def test_a_crawls_urls_take_far_less_than_their_text():
    urls = [f"https://www.example-news.com/{2020 + n % 6}/{n % 12 + 1:02d}/story-{n}-of-the-day/"
            for n in range(10 * BLOCK_KEYS)]
    store = KeyStore()
    store.extend(url.encode() for url in urls)
    assert store.nbytes() < 0.4 * sum(map(len, urls))
    assert store.get(5 * BLOCK_KEYS + 3) == urls[5 * BLOCK_KEYS + 3]


def test_the_same_keys_give_the_same_bytes():
    keys = [key.encode("utf-8") for key in _keys(2 * BLOCK_KEYS)]
    first, second = KeyStore(), KeyStore()
    first.extend(keys)
    for key in keys:
        second.append(key)
    assert first._packed == second._packed and first.nbytes() == second.nbytes()
