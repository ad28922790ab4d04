"""Short pages of one title and one template whose difference is a few figures in the main
text: a city's daily forecast written in Chinese numerals (十二月七日, 最高气温十五度) above a
shared disclaimer, a bottle's capacities in a spec table beside shipping terms full of numbers,
and a documentation site's page per release where a default changed (the release only in the
URL)."""

from __future__ import annotations

from .chrome import Site, esc, render

Page = tuple[str, str]

WEATHER_ZH = Site(
    name="江城在线",
    domain="www.jiangcheng.example.cn",
    tagline="江城人自己的新闻网站",
    nav=("首页", "本地", "天气", "交通", "民生", "视频"),
    lang="zh",
    skip="跳到正文",
    cookie="本网站使用Cookie以改善浏览体验。继续浏览即表示您同意我们使用Cookie。",
    cookie_buttons=("同意", "拒绝"),
    search="搜索",
    account=("登录", "注册", "帮助"),
    home="首页",
    newsletter=("订阅早报", "每天早上七点，把江城的新闻和天气送到您的邮箱。", "订阅"),
    related_heading="相关新闻",
    footer_columns=(("关于我们", ("网站简介", "联系我们", "广告服务")),
                    ("帮助", ("意见反馈", "网站地图", "隐私政策"))),
    legal="版权所有，未经授权禁止转载。",
)
#: (date, sky, wind, high, low): every figure in Chinese numerals, as such columns print them
FORECASTS = (
    ("三月十一日", "多云转小雨", "偏东风二到三级", "二十三", "十六"),
    ("三月十二日", "晴转多云", "偏南风二到三级", "二十六", "十八"),
    ("三月十三日", "阴有小雨", "偏北风三到四级", "十九", "十三"),
    ("三月十四日", "小雨转中雨", "偏北风四到五级", "十五", "十一"),
    ("三月十五日", "多云转晴", "偏西风二到三级", "二十一", "十"),
    ("三月十六日", "晴", "南风三到四级", "二十八", "二十"),
    ("三月十七日", "晴转阴", "东南风二到三级", "二十四", "十七"),
    ("三月十八日", "雷阵雨", "西南风三到四级", "二十二", "十九"),
    ("三月十九日", "阴转多云", "北风四到五级", "十七", "九"),
    ("三月二十日", "多云", "东风二到三级", "二十", "十二"),
)
DISCLAIMER_ZH = (
    "【免责声明】本预报由市气象台提供，仅供参考。如遇灾害性天气，请以气象部门发布的预警信息为准，"
    "并注意出行安全。"
)


def forecasts_zh() -> list[Page]:
    """A Chinese news site's daily forecast column: one title (江城天气预报), the date and the
    temperatures in Chinese numerals, a disclaimer every page shares."""
    pages = []
    for number, (date, sky, wind, high, low) in enumerate(FORECASTS, start=1):
        text = (f"市气象台发布{date}天气预报：今天白天{sky}，{wind}，最高气温{high}度；"
                f"今天夜间最低气温{low}度。请市民注意天气变化，合理安排出行。")
        main = (f'<div class="article"><h1>江城天气预报</h1>'
                f'<div class="info">来源：市气象台 发布日期：{date}</div>'
                f'<div class="content"><p>{esc(text)}</p><p>{esc(DISCLAIMER_ZH)}</p></div></div>')
        pages.append((f"https://{WEATHER_ZH.domain}/weather/{number}.html",
                      render(WEATHER_ZH, title="江城天气预报", main=main,
                             breadcrumbs=[("天气", "/weather/")])))
    return pages


SHOP = Site(
    name="Fjell Outdoor",
    domain="shop.fjell.example",
    tagline="Gear for long days outside",
    nav=("Bottles", "Cookware", "Packs", "Sale", "Stores"),
)
#: (capacity, height, weight, SKU)
CAPACITIES = (
    ("350ml", "19cm", "240g", "FJ-B350"), ("500ml", "24cm", "310g", "FJ-B500"),
    ("600ml", "25cm", "330g", "FJ-B600"), ("750ml", "27cm", "380g", "FJ-B750"),
    ("1L", "31cm", "450g", "FJ-B1000"), ("1.2L", "33cm", "480g", "FJ-B1200"),
    ("1.5L", "35cm", "520g", "FJ-B1500"), ("2L", "38cm", "610g", "FJ-B2000"),
    ("400ml", "21cm", "270g", "FJ-B400"), ("900ml", "29cm", "420g", "FJ-B900"),
)
SHIPPING = (
    "Orders placed before 2pm ship the same day. Standard delivery takes 2-4 days and is free "
    "over $50; express costs $9.90 (order by 11am, 1-day). Returns within 30 days, refunds "
    "within 5 days; EU orders 3-5 days, UK 4-6 days, US 5-8 days, CH 6-9 days; call "
    "1-800-555-0199, 24/7, 365 days a year."
)


def spec_variants() -> list[Page]:
    """A bottle's capacities, one page each under one title and one price: the capacity, height,
    weight and SKU sit in a spec table inside the main text, beside shipping terms with more
    numbers than a sketch of figures keeps."""
    pages = []
    for capacity, height, weight, sku in CAPACITIES:
        rows = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in (
            ("Capacity", capacity), ("Height", height), ("Weight", weight), ("SKU", sku)))
        main = ('<div class="product"><h1>Summit Insulated Bottle</h1><p class="price">$34.95</p>'
                "<p>Double-walled stainless steel keeps drinks cold for 24 hours and hot for 12 "
                "hours. The leak-proof lid fits in one hand and the powder-coated finish does "
                "not slip.</p><h2>Specifications</h2>"
                f'<table class="specs">{rows}</table><h2>Shipping &amp; returns</h2>'
                f"<p>{esc(SHIPPING)}</p></div>")
        pages.append((f"https://{SHOP.domain}/p/summit-bottle-{sku.lower()}",
                      render(SHOP, title="Summit Insulated Bottle", main=main,
                             breadcrumbs=[("Bottles", "/c/bottles")])))
    return pages


DOCS = Site(
    name="Tern",
    domain="tern-docs.example",
    tagline="A home automation hub",
    nav=("Docs", "Integrations", "Blog", "Community"),
)
#: (release, the logger's default level): a default that changed between releases
RELEASES = (("0.9", "debug"), ("1.0", "warning"), ("1.1", "notice"), ("1.2", "verbose"),
            ("2.0", "info"), ("2.1", "alert"), ("2.2", "fatal"), ("3.0", "error"),
            ("3.1", "critical"), ("3.2", "trace"))


def docs_releases() -> list[Page]:
    """A documentation site's logging page per release, one title: the release only in the URL,
    a default level the only word of the text that changes."""
    pages = []
    for release, level in RELEASES:
        main = ('<article class="doc"><h1>Logging</h1>'
                "<p>The logger integration sets how much Tern writes to its log. Each integration "
                "can have a level of its own; the default applies to every integration that has "
                f"none. The default level is <code>{level}</code>.</p>"
                "<p>Set the levels in the configuration file under the logger key, then restart "
                "Tern. Messages below an integration's level are dropped before they are "
                "written, so a lower level costs disk space and a higher one hides problems.</p>"
                "</article>")
        pages.append((f"https://{DOCS.domain}/docs/{release}/logging/",
                      render(DOCS, title="Logging", main=main,
                             breadcrumbs=[("Docs", f"/docs/{release}/")])))
    return pages
