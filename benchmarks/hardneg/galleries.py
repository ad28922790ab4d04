"""Photo galleries of one title and one template: each page the same introduction over its own
photos, whose captions (``<figcaption>``) are all that tells one page from another. An article
extractor that leaves captions out, as most do, reads every page as the introduction alone. And
a slideshow of one photo a page, without captions: its counter ("Photo 3 of 10") and its image
tell the pages apart."""

from __future__ import annotations

import random

from .chrome import Site, esc, render

Page = tuple[str, str]

NEWS = Site(
    name="The Harbour Courier",
    domain="www.harbourcourier.example",
    tagline="News from the coast since 1902",
    nav=("News", "Sport", "Business", "Culture", "Pictures", "Opinion"),
)

SUBJECTS = (
    "Fishermen", "Schoolchildren", "Volunteers", "Firefighters", "Dancers", "Protesters",
    "Farmers", "Commuters", "Lifeboat crews", "Pensioners", "Students", "Nurses",
)
ACTIONS = (
    "unload the first catch of the season", "plant trees along the new cycle path",
    "clear seaweed from the beach", "rehearse for the summer carnival",
    "march against the closure of the maternity ward", "queue for the reopened ferry",
    "repair storm damage to the pier", "race home-made rafts across the harbour",
    "light lanterns for the winter festival", "sort donations at the food bank",
    "paint a mural on the old fish market", "watch the tall ships leave port",
)
PLACES = (
    "at Northgate quay", "outside the town hall", "on Castle Beach", "in Victoria Park",
    "at the lifeboat station", "beside the marina", "on the promenade", "in the market square",
)
TIMES = (
    "on Monday morning", "on Tuesday evening", "at dawn on Wednesday", "on Thursday afternoon",
    "on Friday night", "on Saturday", "on Sunday",
)

INTRO = (
    "Our photographers' pick of the week on the coast: the people, the weather and the events "
    "that made the news. Send us your own pictures through the reader upload page, and we will "
    "publish the best of them in next week's gallery."
)

NEWS_ZH = Site(
    name="海港日报",
    domain="www.haigang-daily.example",
    tagline="海港日报 权威发布",
    nav=("新闻", "体育", "财经", "文化", "图片", "评论"),
    lang="zh-CN",
)

SUBJECTS_ZH = (
    "渔民", "小学生", "志愿者", "消防员", "舞蹈演员", "农民", "乘客", "护士", "老人", "大学生",
)
ACTIONS_ZH = (
    "卸下今年第一网鱼", "在新建绿道两旁植树", "清理海滩上的垃圾", "为夏季灯会排练",
    "排队登上恢复运营的渡轮", "修复被台风损坏的栈桥", "划着自制木筏横渡港湾", "为冬季庙会点亮花灯",
    "在食物银行分拣捐赠物资", "在老鱼市外墙绘制壁画",
)
PLACES_ZH = ("在北门码头", "在市政府广场", "在城堡海滩", "在人民公园", "在救生站旁", "在滨海步道")
TIMES_ZH = ("周一清晨", "周二傍晚", "周三黎明", "周四下午", "周五夜间", "周六", "周日")

INTRO_ZH = (
    "本周海港图片精选：记录过去七天里发生在我们身边的人和事。"
    "欢迎读者通过投稿页面上传照片，优秀作品将在下周图集中刊出。"
    "投稿请注明拍摄时间、地点和作者姓名，图片不小于两百万像素，编辑部保留选用和裁剪的权利。"
)


def _captions(rng: random.Random, parts: tuple[tuple[str, ...], ...], count: int, join: str,
              seen: set[str]) -> list[str]:
    captions: list[str] = []
    while len(captions) < count:
        subject, action, place, time = (rng.choice(options) for options in parts)
        caption = (f"{subject} {action} {place} {time}." if join == " "
                   else f"{subject}{time}{place}{action}。")
        if caption not in seen:
            seen.add(caption)
            captions.append(caption)
    return captions


def _gallery(title: str, intro: str, captions: list[str], photos: str) -> str:
    figures = "".join(
        f'<figure class="wp-block-image size-large"><img src="{photos}{number}.jpg" alt="">'
        f'<figcaption class="wp-element-caption">{esc(caption)}</figcaption></figure>'
        for number, caption in enumerate(captions, start=1)
    )
    return (f'<article class="gallery-post"><h1>{esc(title)}</h1><p>{esc(intro)}</p>'
            f'<figure class="wp-block-gallery has-nested-images columns-2">{figures}</figure>'
            "</article>")


def _weekly(site: Site, title: str, intro: str, parts: tuple[tuple[str, ...], ...], join: str,
            seed: int, section: tuple[str, str], url: str) -> list[Page]:
    """Ten weekly galleries of ``site`` under one title and introduction, six photos each,
    ``url`` formatted with the week."""
    rng, seen = random.Random(seed), set()
    pages = []
    for week in range(1, 11):
        captions = _captions(rng, parts, 6, join, seen)
        main = _gallery(title, intro, captions, f"/photos/2024/{week}/")
        pages.append((url.format(domain=site.domain, week=week),
                      render(site, title=title, main=main, breadcrumbs=[section])))
    return pages


def photo_galleries() -> list[Page]:
    """Ten weekly galleries under one title ("Photos of the week"), the week only in the URL,
    six photos each."""
    return _weekly(NEWS, "Photos of the week", INTRO, (SUBJECTS, ACTIONS, PLACES, TIMES), " ", 7,
                   ("Pictures", "/pictures/"), "https://{domain}/pictures/2024/week-{week}/")


def photo_galleries_zh() -> list[Page]:
    """The same in Chinese: ten weekly galleries titled 一周图片精选."""
    return _weekly(NEWS_ZH, "一周图片精选", INTRO_ZH,
                   (SUBJECTS_ZH, ACTIONS_ZH, PLACES_ZH, TIMES_ZH), "", 8, ("图片", "/tupian/"),
                   "https://{domain}/tupian/2024/week-{week}.html")


VILLAGES = ("gordes", "roussillon", "menerbes", "lourmarin", "bonnieux", "venasque",
            "moustiers", "simiane", "saignon", "ansouis")

INTRO_SLIDES = (
    "Golden stone, shaded squares and views over the lavender fields: our pick of the hill "
    "villages of the Vaucluse and the Alpes-de-Haute-Provence to visit this summer, away from "
    "the crowds on the coast. Use the arrows to move through the photos."
)


def photo_slides() -> list[Page]:
    """A slideshow, one photo a page, under one title and introduction: no caption, only the
    counter above the photo and the photo itself differ."""
    pages = []
    count = len(VILLAGES)
    for number, village in enumerate(VILLAGES, 1):
        nav = "".join(
            f'<a class="{name}" href="/pictures/provence-villages/photo-{target}">{label}</a>'
            for name, target, label in (("prev", number - 1, "Previous"),
                                        ("next", number + 1, "Next"))
            if 1 <= target <= count)
        main = (f'<article class="post"><h1>The ten most beautiful villages of Provence</h1>'
                f'<p class="standfirst">{esc(INTRO_SLIDES)}</p>'
                f'<div class="counter">Photo {number} of {count}</div>'
                f'<figure class="slide"><img src="/img/provence/{village}-1200.jpg" alt="">'
                f"</figure>"
                f"{nav}</article>")
        pages.append((f"https://{NEWS.domain}/pictures/provence-villages/photo-{number}",
                      render(NEWS, title="The ten most beautiful villages of Provence",
                             main=main)))
    return pages
