"""The demo site's articles: original short texts written for this project (English and Chinese).

Each article is a title and paragraphs. ``EDITS`` gives, for some articles, a revised version
(a typo fixed, a sentence added) that the site publishes as a near-duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Article:
    slug: str
    lang: str
    title: str
    paragraphs: tuple[str, ...]


ENGLISH = (
    Article(
        "harbour-ferry-returns",
        "en",
        "The harbour ferry returns after a winter of repairs",
        (
            "The small blue ferry that links the old town with the island quarter went back into "
            "service on Monday morning, four months after a storm tore its rudder loose and left "
            "it stranded against the northern pier.",
            "Commuters who had spent the winter on a slow detour around the bay lined up before "
            "dawn. Many of them brought coffee for the crew, who had worked through the holidays "
            "in the shipyard to fit a new rudder, rewire the wheelhouse and replace the worn deck "
            "planks with recycled oak.",
            "The operator says the crossing now takes eleven minutes instead of fourteen, because "
            "the new propeller bites better in the strong spring currents. Tickets cost the same "
            "as last year, and monthly passes bought before the storm remain valid until June.",
            "Not everyone is pleased. Residents of the island quarter complain that the first "
            "boat still leaves too late for hospital staff on the early shift, and a petition "
            "asking for a six o'clock departure has gathered more than two thousand signatures.",
            "The harbour board will discuss the timetable at its next public meeting. Until then, "
            "the ferry runs every twenty minutes from seven in the morning until nine at night, "
            "with a reduced service on Sundays.",
            "The ferry has crossed the harbour in one form or another for more than a century. "
            "The first boat was rowed by two brothers who charged a penny a head, and the "
            "current vessel, built in the nineteen sixties, is the fourth to carry the route's "
            "name. Local historians have asked the operator to put up a small display about the "
            "crossing in the waiting room on the island side.",
            "For the shopkeepers of the island quarter, the return of the boat could not come "
            "soon enough. Several cafes near the landing stage said trade had fallen by half "
            "during the winter, and one bakery closed its doors for good in February.",
        ),
    ),
    Article(
        "seed-library-opens",
        "en",
        "A seed library opens in the basement of the public library",
        (
            "Gardeners can now borrow seeds the way readers borrow books. A cabinet of small "
            "wooden drawers in the basement of the central library holds beans, squash, lettuce "
            "and more than forty varieties of tomato, each packet labelled with the name of the "
            "person who grew it.",
            "The rule is simple: take what you need in spring, let a few plants go to seed in "
            "autumn, and bring back a share of the harvest so the drawers fill up again. Nobody "
            "checks, and the librarians say nobody needs to, because gardeners are generous by "
            "nature.",
            "The idea came from a retired teacher who kept a jar of runner beans from her "
            "grandmother's farm for thirty years. She wanted the beans to outlive her, and she "
            "thought a library was the one place where things are meant to be shared and "
            "returned.",
            "In its first week the library lent out more than six hundred packets. The most "
            "popular were a yellow pear tomato and a climbing bean with purple pods, both grown "
            "for decades by families in the allotments behind the railway station. A local "
            "school took a whole drawer of sunflowers for a competition between classes.",
            "Seed libraries have spread quietly over the past twenty years, often in small towns "
            "where old varieties risk disappearing when the last person who grows them gives up "
            "gardening. Each plant that is saved, sown and saved again adapts a little more to "
            "the local soil and weather, which commercial seed bred for whole continents cannot "
            "do.",
            "The librarians admit the cabinet has caused some confusion. One man tried to renew "
            "a packet of onion seed online, and a child asked whether there would be a fine if "
            "her pumpkins came back late. The answer, the head librarian said, is that pumpkins "
            "are always welcome, whatever their size and whenever they arrive.",
            "Volunteers will run workshops on saving seed every second Saturday, starting with "
            "peas and beans, which are the easiest, and ending with carrots, which need two years "
            "and a great deal of patience. Visitors should recieve a printed guide at the desk.",
        ),
    ),
    Article(
        "night-buses-survey",
        "en",
        "Survey finds night bus riders want shelter more than speed",
        (
            "A survey of almost three thousand people who ride the city's night buses found that "
            "a dry, lit place to wait matters more to them than a faster journey. Two thirds of "
            "those asked said they had waited in the rain at a stop without a roof in the past "
            "month.",
            "Cleaners, nurses, bakers and bar staff made up most of the riders who answered. Many "
            "said they felt unsafe at dark stops on the edge of the city, and several women said "
            "they walk to a stop further away because it is next to an all-night petrol station.",
            "The transport department had planned to spend its budget on express routes that skip "
            "minor stops. After reading the results, officials said they would move part of the "
            "money to new shelters with solar lights and live arrival screens.",
            "Riders also asked for buses that wait a few minutes at the main interchange so that "
            "people are not stranded when a connecting route runs late. The department promised "
            "to test the idea on two routes this summer and publish the results.",
            "The survey also showed how much the night network has changed. Ten years ago most "
            "riders were young people going home after an evening out; today the majority are "
            "travelling to or from work, and the busiest hours are between four and six in the "
            "morning, when hospitals, markets and delivery depots change shifts.",
        ),
    ),
    Article(
        "bridge-painters",
        "en",
        "The painters who keep the iron bridge from rusting away",
        (
            "Every spring a crew of six climbs the iron bridge over the river with brushes, "
            "ropes and a great deal of grey paint. It takes them the whole season to cover the "
            "span once, and by the time they finish at the southern end, the northern end needs "
            "attention again.",
            "The foreman has done the job for twenty two years. He says the secret is not the "
            "paint but the preparation: every flake of old coating and every spot of rust must be "
            "scraped off by hand, because new paint on a rusty surface peels within a year.",
            "Modern coatings last longer than the lead paint used a century ago, and the crew now "
            "works from a moving platform instead of wooden planks hung on chains. Still, the "
            "wind off the water makes some days impossible, and the work stops whenever gusts "
            "pass forty kilometres an hour.",
            "Engineers estimate that without the painters the bridge would need major repairs "
            "within fifteen years. With them, it should stand for another century.",
        ),
    ),
    Article(
        "school-chess-club",
        "en",
        "A primary school chess club beats the grown-ups",
        (
            "Children from the chess club of a small primary school won the regional team "
            "tournament on Saturday, finishing ahead of three adult clubs that have played in the "
            "league for decades.",
            "The club started four years ago with a single board in the corner of the library. "
            "Today forty pupils meet twice a week, and older children teach the younger ones the "
            "openings while the teacher in charge referees the arguments.",
            "The youngest player on the winning team is eight. She won both of her games, one of "
            "them against a retired engineer who later said he had not lost to anyone so young "
            "since he taught his own daughter to play.",
            "Parents have started a fund to send the team to the national finals in the autumn. "
            "The school hopes the trip will persuade other schools in the district to open clubs "
            "of their own.",
        ),
    ),
    Article(
        "orchard-frost",
        "en",
        "Orchard growers fight a late frost with fires and fans",
        (
            "Fruit growers in the valley spent Tuesday night awake, lighting small fires between "
            "the rows and running large fans to stir warmer air down onto their blossoming "
            "apple and cherry trees as the temperature fell below zero.",
            "A frost at blossom time can destroy a whole year's crop in a few hours. The flowers "
            "are most vulnerable in the days after they open, and this year a warm March pushed "
            "them out almost three weeks earlier than usual.",
            "Some farmers sprayed their trees with water, which sounds strange but works: as the "
            "water freezes it releases heat and forms a thin shell of ice that keeps the blossom "
            "inside just above the damaging temperature.",
            "It will be another week before growers know how much fruit survived. The cherry "
            "orchards on the lower slopes, where cold air collects, are expected to have suffered "
            "the most.",
        ),
    ),
)

CHINESE = (
    Article(
        "laojie-bookstore",
        "zh",
        "老街旧书店重新开张，年轻人排队买书",
        (
            "位于城南老街的一家旧书店上周末重新开张。这家书店已经有四十多年的历史，"
            "去年因为房租上涨一度关门，许多老顾客为此感到惋惜。",
            "这次重新开业，是附近几位大学生和退休教师一起出资帮忙的结果。他们把店里的旧书"
            "重新分类整理，又在二楼布置了一个安静的阅读角，读者可以坐下来慢慢翻看。",
            "开张当天，门口排起了长队，其中不少是第一次来的年轻人。一位读研究生的女生说，"
            "她在网上看到书店的故事，特意坐了一个小时的地铁过来，买到了一本找了很久的诗集。",
            "店主表示，书店今后会每月举办一次读书分享会，并且接受市民捐赠的旧书。"
            "卖书所得的一部分收入，将用于给山区学校的孩子们购买课外读物。",
            "书店里最受欢迎的是一排泛黄的老杂志和连环画，很多中年读者在这里找到了自己小时候"
            "读过的版本，一边翻看一边和身边的朋友回忆当年省下零花钱买书的日子。",
            "帮忙整理书店的志愿者说，他们花了整整三个星期，才把一万多本书按类别重新上架，"
            "其中还发现了几本民国时期出版的地方志，已经请图书馆的专家帮忙鉴定。",
            "附近的居民说，老街上的店铺这些年换了一批又一批，能留下一家书店很不容易，"
            "希望它能一直开下去。",
        ),
    ),
    Article(
        "community-canteen",
        "zh",
        "社区老年食堂开业，一顿午饭只要十元",
        (
            "本周一，河西街道的社区老年食堂正式开业。六十岁以上的居民凭卡就餐，"
            "一荤两素加一碗汤，每份午饭只要十元钱，八十岁以上的老人还可以再打八折。",
            "食堂由街道和一家本地餐饮企业合作经营，菜单每周更换，厨师会根据老人的口味"
            "少放盐和油，并且把肉菜做得软烂一些，方便牙口不好的老人食用。",
            "开业第一天，食堂就接待了两百多位老人。住在附近的张阿姨说，自己一个人住，"
            "以前常常随便煮点面条对付一顿，现在走五分钟就能吃上热乎饭菜，还能和老邻居聊聊天。",
            "对于行动不便的老人，食堂还提供送餐上门服务，由社区志愿者负责配送。"
            "街道负责人介绍，下一步计划在另外两个社区开设同样的食堂。",
            "为了让老人吃得放心，食堂的后厨安装了摄像头，就餐区的大屏幕可以实时看到厨师"
            "洗菜、切菜和炒菜的过程，每天的食材采购单也会贴在门口的公告栏上。",
            "不少年轻人也来打听能不能在这里吃饭。食堂经理说，目前优先保障老年人就餐，"
            "等运营稳定以后，可能会在下午错峰时段向其他居民开放，价格会略高一些。",
            "一位退休的老厨师还主动报名当起了志愿者，每周来两次，教年轻厨师做几道"
            "本地的传统家常菜，他说自己做了一辈子饭，最高兴的就是看到大家吃得开心。",
        ),
    ),
    Article(
        "river-cleanup",
        "zh",
        "志愿者周末清理河道，捞出三吨垃圾",
        (
            "上周六清晨，三百多名志愿者来到城东的小河边，开展了一次大规模的河道清理活动。"
            "他们穿着防水裤，拿着长柄网兜，从上游一直清理到入江口。",
            "一天下来，志愿者们一共捞出了大约三吨垃圾，其中大部分是塑料瓶、泡沫饭盒和"
            "废旧轮胎，还有几辆被人丢弃的共享单车。",
            "组织这次活动的环保协会负责人说，这条河过去水质很好，附近的孩子夏天常在这里"
            "游泳，后来随着周边人口增加，垃圾越来越多，河水也变得浑浊。",
            "协会计划每个月组织一次清理，并且在河边设置更多的分类垃圾桶。"
            "他们还希望有关部门加强巡查，对乱扔垃圾的行为进行处罚。",
        ),
    ),
    Article(
        "rural-library",
        "zh",
        "山村小学有了图书室，孩子们课间抢着看书",
        (
            "在西部山区的一所村小学里，一间由旧教室改造的图书室最近投入使用。"
            "书架上摆满了两千多本新书，从童话故事到科普读物应有尽有。",
            "这些书来自城市里一家公司的员工捐赠。他们不仅送来了书，还利用假期时间"
            "帮学校刷墙、做书架，把原本破旧的教室布置得明亮又温馨。",
            "学校的老师说，以前学生们课外几乎没有书可读，现在每到课间，图书室里都挤满了"
            "孩子，有的坐在地上就看了起来，上课铃响了还舍不得走。",
            "为了让书籍流动起来，学校制定了借阅制度，每个学生每周可以借两本书带回家，"
            "和家里的弟弟妹妹一起看。",
        ),
    ),
    Article(
        "tea-harvest",
        "zh",
        "春茶开采，茶农忙着采摘新芽",
        (
            "清明前后，南方山区的茶园迎来了采茶的最佳时节。天刚蒙蒙亮，茶农们就背着竹篓"
            "上山，在一垄垄茶树间弯腰采摘刚冒出来的嫩芽。",
            "今年春天雨水充足，气温回升平稳，茶叶长势比去年更好。一位种了三十年茶的老茶农说，"
            "好的明前茶一芽一叶，采摘时要用指尖轻轻掐断，不能用指甲，否则断口会发黑。",
            "采下来的鲜叶当天就要送进加工厂，经过摊晾、杀青、揉捻和烘干等工序，"
            "才能变成市场上出售的成品茶。",
            "近年来，当地还发展起了茶园观光，不少城里的游客专程赶来体验采茶和炒茶，"
            "为茶农增加了一份收入。",
        ),
    ),
    Article(
        "night-market",
        "zh",
        "夜市重新开放，小吃摊前人头攒动",
        (
            "经过两个月的改造，市中心的老夜市于本周五晚上重新开放。整条街重新铺设了路面，"
            "安装了新的照明和排水设施，摊位也统一换成了整齐的不锈钢餐车。",
            "开市当晚，烤串、臭豆腐、炒粉和糖水摊前都排起了长队。一位卖了二十年馄饨的摊主说，"
            "改造以后环境干净多了，来吃东西的客人也比以前多。",
            "为了减少油烟和噪音对周边居民的影响，管理部门要求所有摊位安装油烟净化设备，"
            "并且规定夜市每天晚上十一点半之前收摊。",
            "不少市民表示，夜市是这座城市的烟火气所在，希望改造之后能保留原来的老味道。",
        ),
    ),
)

ALL = ENGLISH + CHINESE
BY_SLUG = {article.slug: article for article in ALL}

#: slug -> (old text, new text) replacements, and a sentence appended to the last paragraph.
EDITS: dict[str, tuple[tuple[str, str], str]] = {
    "seed-library-opens": (
        ("should recieve a printed guide", "should receive a printed guide"),
        " The cabinet itself was built by students from the carpentry college.",
    ),
    "community-canteen": (
        ("每份午饭只要十元钱", "每份午饭只需十元钱"),
        "食堂的营业时间为每天上午十一点到下午一点。",
    ),
}


def edited(article: Article) -> Article:
    """The revised version of an article that has an entry in ``EDITS``."""
    (old, new), added = EDITS[article.slug]
    paragraphs = [paragraph.replace(old, new) for paragraph in article.paragraphs]
    paragraphs[-1] += added
    return Article(article.slug, article.lang, article.title, tuple(paragraphs))
