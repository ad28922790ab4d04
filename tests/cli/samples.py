"""Hand-written records for the command-line tests: English and Chinese, with planted duplicates.

Every text here was written for these tests. ``RECORDS`` is a small crawl export in which some
records repeat earlier ones (exactly, with case and spacing changed, or with one word edited).
"""

from __future__ import annotations

EN_HARBOUR = (
    "The harbour authority opened the new ferry terminal on Monday morning after three years of "
    "construction. Commuters who used to wait in a draughty shed now have heated waiting rooms, "
    "a ticket hall with six counters and a covered walkway to the pier. The terminal cost forty "
    "million and was paid for by the port and the regional government together. Officials said "
    "the ferries will run every twenty minutes during the morning rush and every hour late at "
    "night. Local shop owners hope the crowds will bring more customers to the old market street, "
    "which lost much of its trade when the bridge was built."
)
EN_ORCHARD = (
    "Apple growers in the valley expect a smaller harvest this autumn because a late frost in "
    "April damaged many of the blossoms. Several farms lost half of their crop, while orchards on "
    "the higher slopes escaped with little harm. The growers association asked the ministry for "
    "help with the cost of frost protection, such as wind machines and sprinklers that coat the "
    "buds in ice. Prices at the farmers market have already risen, and cider makers say they may "
    "buy fruit from neighbouring regions to keep their presses running through the winter."
)
EN_LIBRARY = (
    "The city library will stay open until midnight during the exam season, the council "
    "announced. Students had complained that the reading rooms closed at eight, leaving them "
    "nowhere quiet to study in the evening. The extra hours will be covered by volunteers and two "
    "new staff members. The library is also lending laptops and portable chargers, and the cafe "
    "on the ground floor will sell soup and sandwiches until eleven. A survey found that most "
    "visitors come by bicycle, so more racks are being installed at the side entrance."
)
ZH_RAILWAY = (
    "新建的城际铁路昨天正式开通运营，从市中心到机场只需要二十五分钟。"
    "这条线路全长六十公里，沿途设有八个车站，每天开行一百二十对列车。"
    "铁路部门表示，早晚高峰期间列车每隔十分钟发出一班，票价根据距离从五元到三十元不等。"
    "不少乘客在第一天就赶来体验，他们认为新线路大大缩短了上班和出差的时间。"
    "沿线的几个小镇也希望借助这条铁路吸引更多游客，带动当地餐饮和住宿的发展。"
)
ZH_TEA = (
    "今年春天雨水充足，山区的茶农迎来了好收成。"
    "清明节前采摘的新茶香气浓郁，收购价格比去年上涨了一成左右。"
    "当地合作社组织茶农学习新的炒制工艺，并通过网络直播把茶叶卖到全国各地。"
    "合作社负责人说，越来越多的年轻人回到村里种茶，他们懂得用手机开网店，也愿意尝试新的包装设计。"
    "镇政府计划修建一条通往茶园的观光步道，让游客可以亲手采茶、品茶。"
)


def shouted(text: str) -> str:
    """The same text in capitals with doubled spaces: normalisation makes it identical."""
    return text.upper().replace(" ", "  ")


def one_word_changed(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# (url, title, body): record numbers are 1-based positions in this list.
RECORDS: list[tuple[str, str, str]] = [
    ("https://news.example/harbour", "New ferry terminal", EN_HARBOUR),  # 1
    ("https://news.example/orchard", "Frost hits orchards", EN_ORCHARD),  # 2
    ("https://mirror.example/harbour", "New ferry terminal", shouted(EN_HARBOUR)),  # 3 same as 1
    ("https://news.example/railway", "城际铁路开通", ZH_RAILWAY),  # 4
    ("https://news.example/brief", "Brief", "Too short to fingerprint."),  # 5 no fingerprint
    ("https://copy.example/harbour", "New ferry terminal",
     one_word_changed(EN_HARBOUR, "draughty", "cold")),  # 6 one word edited
    ("https://copy.example/railway", "城际铁路开通",
     one_word_changed(ZH_RAILWAY, "二十五分钟", "二十六分钟")),  # 7 one word edited
    ("https://news.example/tea", "茶农好收成", ZH_TEA),  # 8
    ("https://news.example/library", "Library opens late", EN_LIBRARY),  # 9
    ("https://mirror.example/orchard", "Frost hits orchards", EN_ORCHARD),  # 10 same as 2
]

# Duplicates whatever the tuning: same text after normalisation (record number -> its original).
CERTAIN_DUPLICATES = {3: 1, 10: 2}
# Different articles: kept whatever the tuning (5 has too little text to fingerprint).
CERTAINLY_KEPT = [1, 2, 4, 5, 8, 9]
