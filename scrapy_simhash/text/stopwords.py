"""Stop words left out of fingerprints: function words that would otherwise dominate the weights.

Lists are case-folded (the tokenizer folds case first). Chinese entries are jieba tokens:
particles, pronouns, conjunctions and prepositions that every article is full of.
"""

from __future__ import annotations

ENGLISH = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each else ever few for from further get gets got had hadn has hasn have
    haven having he her here hers herself him himself his how however i if in into is isn it its
    itself just let ll me might more most mostly much must mustn my myself no nor not now of off
    often on once one only or other ought our ours ourselves out over own re same says said
    shall shan she should shouldn since so some such than that the their theirs them themselves
    then there these they this those though through thus to too under until up upon us ve very
    was wasn way we were weren what when where whether which while who whom whose why will with
    within without won would wouldn yet you your yours yourself yourselves
    """.split()
)

CHINESE = frozenset(
    """
    的 了 着 过 是 在 和 与 及 或 而 并 且 也 都 就 又 还 只 被 把 将 让 给 对 从 向 往 于 以 为
    之 其 这 那 这个 那个 这些 那些 这样 那样 这里 那里 此 该 各 每 某 我 你 您 他 她 它 我们
    你们 他们 她们 它们 咱们 自己 谁 什么 怎么 怎样 如何 哪 哪里 哪些 为什么 吗 呢 吧 啊 呀 哦 嗯
    么 啦 嘛 哈 个 有 没 没有 不 不是 就是 还是 但是 但 可是 然而 因为 所以 因此 如果 虽然 即使
    而且 并且 或者 以及 由于 于是 然后 已经 已 曾 曾经 正在 一 一个 一些 一种 一样 一直 一起 都是
    可以 能 能够 会 要 应 应该 得 地 来 去 上 下 中 里 等 等等 如 像 比 更 最 很 太 非常 十分 则
    即 乃 亦 所 者 之一 之后 之前 以后 以前 以上 以下 其中 其他 其它 另外 此外 还有 通过 进行 关于
    对于 根据 按照 作为 随着 除了 为了 这么 那么 多少 一下 一点 有些 有的 之间 当 当时 时候
""".split()
)

STOP_WORDS = ENGLISH | CHINESE
