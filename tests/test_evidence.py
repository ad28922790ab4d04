"""The evidence that confirms a SimHash candidate: word 3-gram sketches."""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pytest

from scrapy_simhash import evidence as ev
from scrapy_simhash.detectors import SimHashDetector

PYTHON_A = (
    "Python 3 changed how strings work. Every string is now a sequence of Unicode code points, "
    "and bytes are a separate type. Porting old code meant finding every place where the two "
    "were mixed, which took many projects years. The print statement became a function, "
    "integer division changed, and many standard library modules were renamed or merged. "
) * 3
PYTHON_B = (
    "Python 3 brought type hints to the language. A function can now say what it expects and "
    "returns, and tools such as mypy check those promises before the code ever runs. Hints do "
    "not change what Python does at run time; they are read by editors and checkers. Many "
    "projects adopted them slowly, module by module, starting from their public interfaces. "
) * 3
SPANISH_A = (
    "El gobierno de la provincia anunció que las obras de la nueva ruta comenzarán el próximo "
    "mes, después de que los vecinos de la zona reclamaran durante años por el estado de los "
    "caminos. Según el ministro, la inversión será la más grande de la última década. "
)
SPANISH_B = (
    "La selección de fútbol de la ciudad ganó el torneo regional por primera vez en su historia, "
    "y los jugadores celebraron con los aficionados en la plaza central hasta la madrugada. El "
    "entrenador dijo que el triunfo es de todos los que creyeron en el equipo desde el principio. "
)


def evidence(text: str, **kwargs) -> ev.Evidence:
    return ev.of_text(text, **kwargs)


def test_shingles_are_the_same_on_every_run_and_ignore_case():
    hashes, words = ev.shingle_hashes("The quick brown fox jumps over the lazy dog")
    again, _ = ev.shingle_hashes("the QUICK brown fox jumps over the lazy dog")
    assert words == 9
    assert len(hashes) == 7
    assert np.array_equal(hashes, again)
    # a fixed value: the hash is arithmetic on code points, not Python's salted hash()
    assert int(ev.sketch(hashes)[0]) == int(ev.sketch(again)[0])


def test_numbers_and_cjk_characters_are_words():
    _, words = ev.shingle_hashes("Price 1299 on 2024-05-01")
    assert words == 6
    _, cjk = ev.shingle_hashes("北京天气晴")
    assert cjk == 5
    one, _ = ev.shingle_hashes("股价 1200 元")
    other, _ = ev.shingle_hashes("股价 1300 元")
    assert not np.array_equal(one, other)


def words_of(text: str) -> list[str]:
    _, starts, ends, _ = ev._folded_words(text)
    folded = text.casefold()
    return [folded[start:end] for start, end in zip(starts, ends, strict=True)]


def test_words_keep_their_combining_marks():
    # vowel signs are inside words: कुर्ता and कुर्ती were both क, र, त
    assert words_of("सफ़ेद कुर्ता और कुर्ती") == ["सफ़ेद", "कुर्ता", "और", "कुर्ती"]
    assert words_of("কুর্তা কুর্তি") == ["কুর্তা", "কুর্তি"]
    # scripts written without spaces: each letter with its marks is a word, as each ideograph
    # is (หมี and หมู were both หม), their digits a number
    assert words_of("ตุ๊กตาหมี ๒๓") == ["ตุ๊", "ก", "ต", "า", "ห", "มี", "๒๓"]
    assert words_of("ຫມີ") == ["ຫ", "ມີ"]
    # a mark after no letter (an emoji's variation selector) is no word; a decomposed accent
    # stays in its word
    assert words_of("❤\ufe0f love x\u0301y") == ["love", "x\u0301y"]
    for one, other in (("कुर्ता", "कुर्ती"), ("ตุ๊กตาหมี", "ตุ๊กตาหมู"), ("ম্যাচ", "মাচ")):
        assert ev._each_lacks(ev.title_hashes(one), ev.title_hashes(other), ev.TITLE_SKETCH_SIZE)
        assert not np.array_equal(ev.shingle_hashes(one)[0], ev.shingle_hashes(other)[0])
    assert ev._title_spellings("v2.3.1 कुर्ता-नया") == [
        "v2", "3", "1", "कुर्ता", "नया", "v2.3.1", "कुर्ता-नया"]


def test_the_same_text_confirms_and_texts_on_one_topic_do_not():
    assert ev.confirms(evidence(PYTHON_A), evidence(PYTHON_A))
    assert not ev.confirms(evidence(PYTHON_A), evidence(PYTHON_B))
    assert not ev.confirms(evidence(SPANISH_A * 3), evidence(SPANISH_B * 3))


def test_half_of_an_article_confirms_the_whole_and_a_lightly_edited_copy_confirms():
    words = (PYTHON_A + PYTHON_B).split()
    half = " ".join(words[: len(words) // 2])
    assert ev.confirms(evidence(half), evidence(" ".join(words)))
    edited = list(words)
    for n in range(0, len(edited), 40):
        edited[n] = "changed"
    assert ev.confirms(evidence(" ".join(edited)), evidence(" ".join(words)))


def test_a_weak_page_confirms_only_a_nearly_identical_page():
    header = "Access denied. Please verify you are a human; your request looked automated. "
    one = evidence(header + "Reference 7f3a-11c2-9be0.", weak=True)
    same = evidence(header + "Reference 7f3a-11c2-9be0.", weak=True)
    other = evidence(header + "Your order 1188 of three red kettles shipped today to Leeds.",
                     weak=True)
    assert ev.confirms(one, same)
    assert not ev.confirms(one, other)


CHROME = "Lumen Home: lighting, furniture and homeware. Account, wishlist, basket. " * 3
OTHER_CHROME = "The Daily Ledger: news, sport, weather and puzzles since 1851. Subscribe. " * 3
SHELL = ("Why shop with us: every piece is chosen by our buyers for materials that last, "
         "delivered with care and packed in recycled cardboard. ") * 4


def short(main: str, rest: str, chrome: str = CHROME) -> ev.Evidence:
    main_hashes, words = ev.shingle_hashes(main)
    return ev.of_short(main_hashes, words, ev.shingle_hashes(rest)[0],
                       ev.shingle_hashes(chrome)[0], ev.figure_hashes(f"{main}\n{rest}"),
                       lines=ev.line_bits(main))


KETTLE = ("Electric kettle 1.7 l. {price} EUR. SKU {sku}. In stock. This stainless steel kettle "
          "boils up to 1.7 litres of water in under four minutes. It has a concealed heating "
          "element, a removable limescale filter, automatic shut-off and boil-dry protection. "
          "The cordless base rotates 360 degrees, so it suits left- and right-handed users.")


def test_short_pages_of_one_template_with_other_figures_are_distinct():
    first = KETTLE.format(price="29.99", sku="KT-1001")
    variant = KETTLE.format(price="31.49", sku="KT-1002")
    # the same words but a price and a SKU: a product's variant, beside one template
    assert not ev.confirms(short(first, ""), short(variant, ""))
    assert ev.confirms(short(first, ""), short(first, ""))
    # ... also when the line that differs is the main text's on one page, the rest's on the other
    line, description = "Price 31.49 EUR. SKU KT-1002.", KETTLE.split(" In stock. ")[1]
    assert not ev.confirms(short(f"{line} {description}", ""), short(description, "29.99 KT-1001"))
    # a figure only one of them has (a date a print version adds) is no other page
    assert ev.confirms(short(first, ""), short(first + " Printed 27 November 2026.", ""))
    # nor are other figures in another site's template (its own links, dates, counts)
    assert ev.confirms(short(first, "Read more: 12 comments, 3 days ago", OTHER_CHROME),
                       short(first, "Shares 45. Posted 2 hours ago"), same_site=False)
    # figures are words with a digit, case folded, whatever the script's digits
    assert np.array_equal(ev.figure_hashes("SKU kt-1001, 3 units"),
                          ev.figure_hashes("sku KT-1001 ... 3 UNITS"))
    assert len(ev.figure_hashes("Price 31.49 EUR, ３ units")) == 4  # 31, 49, 31.49 and ３
    assert len(ev.figure_hashes("no figures here")) == 0


def test_evidence_stored_without_figures_reads_and_confirms_as_before():
    first = short(KETTLE.format(price="29.99", sku="KT-1001"), "")
    variant = short(KETTLE.format(price="31.49", sku="KT-1002"), "")
    old = ev.Evidence(first.sketch, first.size, first.words, False, first.rest, first.rest_size,
                      first.chrome, first.chrome_size)
    back = ev.Evidence.from_bytes(old.to_bytes())
    assert back is not None and back.figures is None
    assert ev.confirms(back, variant)  # figures unknown: the other signals decide


def titled(main: str, title: str, rest: str = "", chrome: str = CHROME) -> ev.Evidence:
    """A short page's evidence with its title."""
    plain = short(main, rest, chrome)
    return ev.Evidence(plain.sketch, plain.size, plain.words, False, plain.rest, plain.rest_size,
                       plain.chrome, plain.chrome_size, plain.figures, ev.title_hashes(title),
                       lines=plain.lines)


JOB = ("Senior Backend Engineer. {city}. Full time. We are looking for a senior backend engineer "
       "to join our team in {city}. Harbourline helps retailers move goods from warehouses to "
       "their customers. We offer flexible hours, paid holiday, a learning budget and a pension.")


def test_short_pages_of_one_site_with_other_titles_are_distinct():
    berlin, lisbon = JOB.format(city="Berlin"), JOB.format(city="Lisbon")
    ad = titled(berlin, "Senior Backend Engineer – Berlin | Harbourline Careers")
    other = titled(lisbon, "Senior Backend Engineer – Lisbon | Harbourline Careers")
    assert ev.confirms(short(berlin, ""), short(lisbon, ""), same_site=True)  # the text alone
    assert not ev.confirms(ad, other, same_site=True)
    # the same page again (a tracking parameter, an extra block of links) keeps its title
    assert ev.confirms(ad, titled(berlin, "Senior Backend Engineer – Berlin | Harbourline Careers",
                                  "More roles: Lisbon, Warsaw"), same_site=True)
    # a title with a word more on one side only ("Print", a counter) is the same page
    assert ev.confirms(ad, titled(berlin, "Print: Senior Backend Engineer – Berlin | "
                                          "Harbourline Careers"), same_site=True)
    # a partner's copy under its own menus on one host: another template, its title names it
    partner = titled(berlin, "Weekend Jobs - Senior Backend Engineer – Berlin",
                     chrome=OTHER_CHROME)
    assert ev.confirms(ad, partner, same_site=True)
    # on two sites, or sites not known, each title names its site: not compared
    syndicated = titled(berlin, "Senior Backend Engineer in Berlin – JobsDaily")
    assert ev.confirms(ad, syndicated, same_site=False)
    assert ev.confirms(ad, other, same_site=None) == ev.confirms(
        short(berlin, ""), short(lisbon, ""), same_site=None)
    # titles are words, case folded; each CJK character a word of its own
    white = ev.title_hashes("陶器のマグカップ（白）")
    red = ev.title_hashes("陶器のマグカップ（赤）")
    assert ev._each_lacks(white, red, ev.TITLE_SKETCH_SIZE)
    assert np.array_equal(ev.title_hashes("TEXT.STRIP | Docs"), ev.title_hashes("text.strip docs"))
    # ... and spelt alike: accents, apostrophes and full-width letters aside (not kana's marks)
    for one, other in (("Café Königsallee", "Cafe Konigsallee"), ("Grandma's pie", "Grandmas pie"),
                       ("ＯＡＫ ＴＨＲＯＷ", "oak throw")):
        assert np.array_equal(ev.title_hashes(one), ev.title_hashes(other))
    assert not np.array_equal(ev.title_hashes("ガス"), ev.title_hashes("カス"))
    # one word apart in a long title still shows
    words = [f"tip{n}" for n in range(24)]
    assert ev._each_lacks(ev.title_hashes(" ".join([*words, "lstrip"])),
                          ev.title_hashes(" ".join([*words, "split"])), ev.TITLE_SKETCH_SIZE)


def test_weak_pages_of_one_site_with_other_titles_are_distinct():
    shell = "Handmade throw from our collection. Each piece is unique. Free returns. " * 2
    oak = ev.of_hashes(ev.shingle_hashes(shell)[0], 12, True, ev.title_hashes("Oak throw | Shop"))
    bamboo = ev.of_hashes(ev.shingle_hashes(shell)[0], 12, True,
                          ev.title_hashes("Bamboo throw | Shop"))
    assert not ev.confirms(oak, bamboo, same_site=True)
    assert ev.confirms(oak, bamboo, same_site=None)  # nearly the same page, sites not known
    assert ev.confirms(oak, oak, same_site=True)


def test_evidence_stored_without_titles_reads_and_confirms_as_before():
    ad = titled(JOB.format(city="Berlin"), "Senior Backend Engineer – Berlin")
    for stored in (short(JOB.format(city="Lisbon"), ""),
                   ev.of_hashes(ev.shingle_hashes("Access denied")[0], 2, True)):
        back = ev.Evidence.from_bytes(stored.to_bytes())
        assert back is not None and back.title is None
    back = ev.Evidence.from_bytes(short(JOB.format(city="Lisbon"), "").to_bytes())
    assert ev.confirms(ad, back, same_site=True)  # title unknown: the other signals decide


RECIPE = ("Serves 8. Prep 15 minutes, cook 60 minutes. Ingredients: 3 ripe bananas, 75 g melted "
          "butter, 150 g caster sugar, 1 egg, 1 tsp vanilla, 1 tsp soda, a pinch of salt, 190 g "
          "plain flour.{extra} Method: heat the oven to 175 C and butter a loaf tin. Stir the "
          "butter into the bananas, mix in the soda, salt, sugar, egg and vanilla, then fold in "
          "the flour.{step} Bake for an hour and cool on a rack before slicing.")
WALNUT = RECIPE.format(extra=" 100 g chopped walnuts.", step=" Toast the walnuts in a dry pan "
                       "and fold them in with the last of the flour.")


def test_a_title_with_a_word_more_is_another_page_when_its_text_grows_with_it():
    plain = titled(RECIPE.format(extra="", step=""), "Banana Bread | Sunday Oven")
    walnut = titled(WALNUT, "Banana Walnut Bread | Sunday Oven")
    assert ev.confirms(short(RECIPE.format(extra="", step=""), ""), short(WALNUT, ""),
                       same_site=True)  # the texts alone
    assert not ev.confirms(plain, walnut, same_site=True)
    assert not ev.confirms(walnut, plain, same_site=True)
    assert ev.confirms(plain, walnut, same_site=False)  # two sites: titles are not compared
    # a decoration comes with the same text: "Print", a counter, the site's name
    for title in ("Print: Banana Walnut Bread | Sunday Oven", "Banana Walnut Bread (12 comments)"
                  " | Sunday Oven", "Banana Walnut Bread | Sunday Oven Recipes"):
        assert ev.confirms(walnut, titled(WALNUT, title), same_site=True), title
    # long pages: the word more is one the grown text names
    ireland = ROLE.format(city="Dublin") + " These terms are governed by the laws of Ireland."
    northern = (ROLE.format(city="Belfast") + " These terms are governed by the laws of Northern "
                "Ireland, and disputes go before the courts of Northern Ireland in Belfast.")
    assert ev.confirms(long_page(ireland, "Terms"), long_page(northern, "Terms"), same_site=True)
    assert not ev.confirms(long_page(ireland, "Terms (Ireland)"),
                           long_page(northern, "Terms (Northern Ireland)"), same_site=True)
    assert ev.confirms(long_page(northern, "Terms (Northern Ireland) | Lumen"),
                       long_page(northern, "Terms (Northern Ireland)"), same_site=True)
    # a word more that the text does not name is a decoration when the text is the same, or
    # only grows ...
    assert ev.confirms(long_page(northern, "Terms (Northern Ireland)"),
                       long_page(northern, "Terms (Northern Ireland) - AMP"), same_site=True)
    grown = ireland + " Disputes go before the courts of Ireland, sitting in Dublin."
    assert ev.confirms(long_page(ireland, "Terms (Ireland)"),
                       long_page(grown, "Terms (Ireland) - AMP"), same_site=True)
    # ... but where each text has 3-grams the other lacks, the word more is another page's
    assert not ev.confirms(long_page(ireland, "Terms (Ireland)"),
                           long_page(northern, "Terms (Ireland) - AMP"), same_site=True)


def test_a_title_with_a_word_more_over_a_line_swapped_is_another_page():
    # a variant's text need not grow: one ingredient swapped for another, a word its text
    # does not even name ("vegan") in its title
    plain = RECIPE.format(extra="", step="")
    vegan = plain.replace("75 g melted butter", "75 g melted coconut oil").replace(
        "1 egg", "1 flax egg")
    assert ev.confirms(short(plain, ""), short(vegan, ""), same_site=True)  # the texts alone
    assert not ev.confirms(titled(plain, "Banana Bread | Sunday Oven"),
                           titled(vegan, "Vegan Banana Bread | Sunday Oven"), same_site=True)
    # the same text under a decorated title is the same page
    assert ev.confirms(titled(plain, "Banana Bread | Sunday Oven"),
                       titled(plain, "Print: Banana Bread | Sunday Oven"), same_site=True)
    # long pages laid out alike: the same
    role = ROLE.format(city="Leeds")
    swapped = role.replace("vans every morning", "lorries every night")
    assert ev.confirms(long_page(role, "Platform Engineer"),
                       long_page(swapped, "Platform Engineer"), same_site=True)
    assert not ev.confirms(long_page(role, "Platform Engineer"),
                           long_page(swapped, "Platform Engineer (Logistics)"), same_site=True)


CAKE = "\n".join((
    "A rich, moist chocolate cake that is easy to make and always a crowd pleaser.",
    "Ingredients", "225g plain flour", "350g caster sugar", "85g cocoa powder",
    "1.5 tsp baking powder", "1.5 tsp bicarbonate of soda", "{egg}", "250ml whole milk",
    "125ml vegetable oil", "2 tsp vanilla extract", "250ml boiling water", "Method",
)) + "\n" + PYTHON_A + PYTHON_B + SPANISH_A + SPANISH_B


def test_one_line_swapped_counts_however_long_the_text():
    plain, vegan = CAKE.format(egg="2 large eggs"), CAKE.format(egg="6 tbsp aquafaba")
    # the 3-grams' samples of a long text miss the swap: its lines do not
    a, b = long_page(plain, "Chocolate cake"), long_page(vegan, "Vegan chocolate cake")
    assert a.words >= ev.SHORT_WORDS and not ev._each_lacks(a.sketch, b.sketch, ev.SKETCH_SIZE)
    assert ev._lines_swapped(a, b) and not ev.confirms(a, b, same_site=True)
    # the same text under a decorated title, or one that only grows, is the same page
    grown = f"{plain}\nPrinted from sundayoven.example"
    for copy in (plain, grown):
        assert ev.confirms(a, long_page(copy, "Print: Chocolate cake"), same_site=True)
    # lines compare case and spacing aside
    assert np.array_equal(ev.line_bits("2 large  eggs\nMethod"),
                          ev.line_bits("2 Large eggs\n method"))
    assert ev.line_bits("1\n2\nab") is None  # (no line of four characters)
    # a line that only grows at its end is the same line
    method = "Heat the oven to 180C and line two 20cm tins with baking paper"
    assert np.array_equal(ev.line_bits(method), ev.line_bits(f"{method}, greased."))
    # under one title the swap is an edit: the same page
    assert ev.confirms(a, long_page(vegan, "Chocolate cake"), same_site=True)
    # evidence stored without lines compares as before
    assert ev.confirms(a, dataclasses.replace(b, lines=None), same_site=True)


ROLE = ("We are hiring a senior platform engineer for our office in {city}. You will own the "
        "services that plan delivery routes for thousands of vans every morning, review code "
        "with your team and share the on-call rota one week in eight. ") + PYTHON_A * 4


LAYOUT = ["/header.site", "/header.site/nav", "/main", "/main/article", "/aside", "/footer"]


def long_page(text: str, title: str, rest: tuple[str, ...] = (),
              layout: list[str] = LAYOUT, links: tuple[str, ...] = (),
              comments: str = "") -> ev.Evidence:
    """A long page's evidence: its title, named by its text, the lines of its rest, its
    layout's marks, its entries' links and its own comments."""
    hashes, words, text_words, figures = ev.text_hashes(text)
    rest_hashes, _, rest_words, rest_figures = ev.text_hashes("\n".join(rest))
    title_sketch, named = ev.named_title(title, np.concatenate((text_words, rest_words)))
    return ev.of_long(hashes, words, title_sketch, named, rest_hashes, ev.line_hashes(layout),
                      np.union1d(figures, rest_figures),
                      ev.listing_links((list(links), list(links))),
                      ev.shingle_hashes(comments)[0] if comments else None,
                      lines=ev.line_bits(text))


def test_long_pages_of_one_site_are_two_when_each_title_names_its_text():
    berlin = long_page(ROLE.format(city="Berlin"), "Senior Platform Engineer, Berlin | Harbourline")
    lisbon = long_page(ROLE.format(city="Lisbon"), "Senior Platform Engineer, Lisbon | Harbourline")
    assert not berlin.short and not berlin.weak
    assert not ev.confirms(berlin, lisbon, same_site=True)
    assert ev.confirms(berlin, lisbon, same_site=False)  # two sites: each title names its own
    assert ev.confirms(berlin, lisbon, same_site=None)
    # a title's decorations that the text does not name: the site, "Print", a counter
    for title in ("Print: Senior Platform Engineer, Berlin", "Senior Platform Engineer, Berlin "
                  "(3 comments) - AMP", "Senior Platform Engineer, Berlin | Harbourline Careers"):
        copy = long_page(ROLE.format(city="Berlin"), title)
        assert ev.confirms(berlin, copy, same_site=True), title
    # a partner's copy under its own layout on one host: its title names the partner
    ours = long_page(ROLE.format(city="Berlin"), "Senior Platform Engineer, Berlin | Harbourline",
                     ("Harbourline careers",))
    partner = long_page(ROLE.format(city="Berlin"), "Weekend Jobs - Senior Platform Engineer, "
                        "Berlin", ("Weekend Jobs newsletter",), ["/div#top", "/div.layout"])
    assert ev.confirms(ours, partner, same_site=True)
    assert not ev.confirms(ours, long_page(ROLE.format(city="Berlin"), "Weekend Jobs - Senior "
                                           "Platform Engineer, Berlin", ("Weekend Jobs newsletter",
                                                                         )), same_site=True)
    # another headline in another layout (a print version's) is the same page; in one layout,
    # however unlike the titles, each naming its own text makes two (an estate agent's listings,
    # a university's courses: a duplicate kept is the safer error)
    headline = "Platform work in Berlin: routes for thousands of vans"
    assert ev.confirms(berlin, long_page(ROLE.format(city="Berlin"), headline,
                                         layout=["/h1", "/div.print-article"]), same_site=True)
    assert not ev.confirms(berlin, long_page(ROLE.format(city="Berlin"), headline),
                           same_site=True)
    # the word named by the rest of the page's content (a product's options line), or spelt
    # with accents in the text and in the title alike
    walnut = long_page(PYTHON_A * 5, "Linden Sofa in Walnut | Oakhollow", ("Leg finish: Walnut",))
    teak = long_page(PYTHON_A * 5, "Linden Sofa in Teak | Oakhollow", ("Leg finish: Teak",))
    assert not ev.confirms(walnut, teak, same_site=True)
    assert ev.confirms(walnut, long_page(PYTHON_A * 5, "Linden Sofa in Walnut | Oakhollow"),
                       same_site=True)  # named on one side only
    zurich = long_page(ROLE.format(city="Zürich"), "Senior Platform Engineer, Zürich")
    assert not ev.confirms(zurich, berlin, same_site=True)
    # the bytes carry it; evidence stored before (no title) confirms as before
    assert ev.Evidence.from_bytes(berlin.to_bytes()) == berlin
    assert ev.Evidence.from_bytes(berlin.to_bytes()).named == berlin.named
    old = ev.of_hashes(*ev.shingle_hashes(ROLE.format(city="Lisbon")))
    back = ev.Evidence.from_bytes(old.to_bytes())
    assert back is not None and back.title is None and back.named is None and back.long_rest is None
    assert ev.confirms(berlin, back, same_site=True)
    assert ev.Evidence.from_bytes(berlin.to_bytes()[:-1]) is None


def test_long_pages_of_one_site_are_two_when_each_has_a_figure_the_other_lacks():
    listing = ("14 Alder Close, Westbury WB3 4QT. Guide price 325,000 pounds. 3 bedrooms. "
               + PYTHON_A * 4)
    other = ("7 Station Road, Westbury WB1 2HN. Guide price 310,000 pounds. 3 bedrooms. "
             + PYTHON_A * 4)
    title = "3 bedroom house for sale in Westbury | Marlow"
    a, b = long_page(listing, title), long_page(other, title)
    assert ev.confirms(ev.of_text(listing), ev.of_text(other))  # the texts alone
    assert not ev.confirms(a, b, same_site=True)
    assert ev.confirms(a, b, same_site=False)  # two sites: a partner's copy may reformat
    assert ev.confirms(a, b, same_site=None)
    # a copy keeps its figures; one that adds a date (a print version) has a figure on one
    # side only
    assert ev.confirms(a, long_page(listing, title), same_site=True)
    assert ev.confirms(a, long_page(listing + " Printed 27 November 2026.", title),
                       same_site=True)
    # another layout (a print version's) is not compared
    assert ev.confirms(a, long_page(other, title, layout=["/h1", "/div.print"]), same_site=True)
    # figures that change at every request beside the same text are counters, not another page:
    # views, comments, the time it was served, in the rest or in a line of the main text
    for first, second in (("12,038 views", "12,052 views"), ("Updated 13:34", "Updated 15:04"),
                          ("23 comments", "25 comments")):
        assert ev.confirms(long_page(listing, title, (first,)),
                           long_page(listing, title, (second,)), same_site=True), first
        assert ev.confirms(long_page(f"{listing}\n{first}", title),
                           long_page(f"{listing}\n{second}", title), same_site=True), first


def test_figures_hold_what_versions_dates_and_numbers_join():
    # each version's digits are the other's ("4" from "--workers 4"): the joined pairs differ
    v3 = ev.figure_hashes("pip install quarry==3.2.0, then quarry worker --workers 4")
    v4 = ev.figure_hashes("pip install quarry==4.0.2, then quarry worker --workers 4")
    assert ev._each_lacks(v3, v4, ev.FIGURES_SKETCH_SIZE)
    for one, two in (("2025-03-12", "2025-12-03"), ("10:30", "30:10"), ("1,500", "500,1")):
        assert ev._each_lacks(ev.figure_hashes(f"on {one} at"), ev.figure_hashes(f"on {two} at"),
                              ev.FIGURES_SKETCH_SIZE), (one, two)
    # the same figures, however spaced or joined to words, are the same set
    assert np.array_equal(ev.figure_hashes("v3.2.0 - 4"), ev.figure_hashes("v3.2.0 - 4"))
    assert not ev._each_lacks(ev.figure_hashes("released 3.2.0"),
                              ev.figure_hashes("released 3.2.0 on 2025-01-02"),
                              ev.FIGURES_SKETCH_SIZE)
    # words joined without a figure among them are no figure
    assert not len(ev.figure_hashes("client.get_object and mg-red"))


def test_date_figures_read_a_date_alike_however_it_is_written():
    written = ("Date: March 14, 2025 at 7:30pm", "Friday 14th March 2025", "2025-03-14",
               "2025/3/14 19:30", "2025年3月14日（金）", "Fri, 14 Mar. 2025")
    for text in written:
        assert np.array_equal(ev.date_figures(text), ev.date_figures("2025-03-14")), text
    # another day is a figure of its own even where it is another figure's part
    august = ev.date_figures("Saturday, August 30, 2025, kickoff 7:30 PM")
    march = ev.date_figures("Saturday, March 15, 2025, kickoff 7:30 PM")
    assert ev._each_lacks(august, march, ev.FIGURES_SKETCH_SIZE)
    for text in ("Kickoff 7:30 PM", "12025-01-01", "2025-13-40", "May 2025", ""):
        assert not len(ev.date_figures(text)), text


FIELDS = ("Apply now", "Share this job", "Location: {city}", "Salary: {pay}", "Req ID: {ref}")


def fields(city: str, pay: str, ref: str) -> tuple[str, ...]:
    return tuple(line.format(city=city, pay=pay, ref=ref) for line in FIELDS)


def test_long_pages_of_one_site_are_two_when_their_rests_differ():
    text, title = PYTHON_A * 5, "Senior Platform Engineer | Harbourline"
    berlin = long_page(text, title, fields("Berlin", "EUR 75,000", "R-2098"))
    warsaw = long_page(text, title, fields("Warsaw", "PLN 28,000", "R-20119"))
    assert not ev.confirms(berlin, warsaw, same_site=True)  # the same text, other fields
    assert ev.confirms(berlin, warsaw, same_site=False)  # two sites: rests tell nothing
    assert ev.confirms(berlin, warsaw, same_site=None)
    # the same page again, with a line more (an extra block), with a rest of next to nothing,
    # or in a print layout
    assert ev.confirms(berlin, long_page(text, title, (*fields("Berlin", "EUR 75,000", "R-2098"),
                                                       "More roles in Berlin")), same_site=True)
    assert ev.confirms(berlin, long_page(text, title, ("Printed from harbourline.example",)),
                       same_site=True)
    assert ev.confirms(berlin, long_page(text, title, ("Printed from harbourline.example",
                                                       "Location: Berlin, Salary: EUR 75,000"),
                                         ["/h1", "/div.print-article", "/p.printed-from"]),
                       same_site=True)
    # an edited copy whose edits reach its rest too: a few words, no other figure
    edited = long_page(text.replace("Unicode", "unicode text", 3), title,
                       fields("Berlin", "EUR 75,000 a year", "R-2098"))
    assert ev.confirms(berlin, edited, same_site=True)
    # other fields without a figure: another office and team, more than a few words apart
    lisbon = long_page(text, title, ("Apply now", "Share this job", "Location: Lisbon, Portugal",
                                     "Team: Risk and fraud", "Type: permanent, remote-friendly"))
    assert not ev.confirms(berlin, lisbon, same_site=True)
    # another layout: a partner's copy under its own menus on one host
    assert ev.confirms(berlin, long_page(text, title, ("Jobs in Europe", "Post a job",
                                                       "Weekend Jobs newsletter"),
                                         ["/div#wrap", "/div#wrap/div.top", "/div#wrap/div.body"]),
                       same_site=True)
    back = ev.Evidence.from_bytes(berlin.to_bytes())
    assert back == berlin and back.long_rest_size == berlin.long_rest_size > 0
    assert back.figures is not None
    assert back.layout_size == len(LAYOUT)
    many = ev.Evidence.from_bytes(long_page(text, title, tuple(f"Line {n} of the rest"
                                                             for n in range(100))).to_bytes())
    assert many.long_rest_size > ev.LONG_REST_SKETCH_SIZE == len(many.long_rest)
    for cut in (1, 4, 30):  # a truncated record is no evidence
        assert ev.Evidence.from_bytes(berlin.to_bytes()[:-cut]) is None


_WHO = ("The council", "Residents", "The mayor", "Cyclists", "The harbour board", "Parents",
        "The library", "Shop owners", "The zoo", "Farmers", "The rail operator", "Teachers")
_WHAT = ("approved", "criticised", "delayed", "welcomed", "reviewed", "questioned", "funded",
         "rejected", "postponed", "defended", "cancelled", "proposed")
_TOPIC = ("bridge", "parking", "tram", "bike lane", "flood barrier", "school meal", "archive",
          "market", "garden", "water", "night bus", "reading")
_NAMES = [f"{first} {last}" for first in ("Ann", "Bob", "Cleo", "Dev", "Eli", "Fay")
          for last in ("Moss", "Hale", "Reed", "Park", "Lund", "Shaw")]
TEASERS = [  # 36 distinct one-line teasers: a long page's worth of a listing
    f"{_WHO[n % 12]} {_WHAT[(n * 5 + n // 12) % 12]} the {_TOPIC[(n * 7 + 3 * (n // 12)) % 12]} "
    f"plan after a long meeting, {_NAMES[n]} wrote."
    for n in range(36)
]
THREADS = [f"Thread about {topic} ({n} replies)" for n, topic in enumerate(
    ("the bridge", "parking", "the tram", "bike lanes", "floods", "school meals", "the archive",
     "the market", "a garden", "water", "night buses", "reading"))]


def test_a_listing_with_another_entry_is_another_page():
    # a forum's first page, then the same page after a new thread: the new thread is linked
    # from the later page only (its entry: a linked title over a teaser)
    def board(first: int, **changes) -> ev.Evidence:
        threads = THREADS[first:first + 10]
        return long_page("\n".join(TEASERS[first:first + 30]), "Community forum | Riverton",
                         tuple(threads), links=tuple(f"/t/{n + first}" for n in range(10)),
                         **changes)

    before, after = board(0), board(1)
    assert ev.entries_part(before, after, same_site=True)
    assert not ev.confirms(before, after, same_site=True)
    assert ev.confirms(before, after, same_site=False)  # (two sites: a mirror's copy)
    # an edited copy links the same entries: the same page
    text, rest = "\n".join(TEASERS[:30]), tuple(THREADS[:10])
    edited = long_page(text.replace("long meeting", "short meeting", 2),
                       "Community forum | Riverton", rest,
                       links=tuple(f"/t/{n}" for n in range(10)))
    assert not ev.entries_part(before, edited, same_site=True)
    assert ev.confirms(before, edited, same_site=True)
    # a print version, laid out otherwise, and pages of prose with a link or two are no listing
    assert not ev.entries_part(before, board(1, layout=["/h1", "/div.print-article"]),
                               same_site=True)
    few = long_page(text, "Community forum | Riverton", rest, links=("/t/0",))
    assert not ev.entries_part(few, long_page(text, "Community forum | Riverton", rest,
                                              links=("/t/1",)), same_site=True)
    # a listing's last page, with an entry or two of its own, is another page of it
    last = long_page(text, "Community forum | Riverton", rest, links=("/t/40", "/t/41"))
    assert ev.entries_part(before, last, same_site=True)
    assert ev.entries_part(last, before, same_site=True)
    assert not ev.entries_part(before, long_page(text, "Community forum | Riverton", rest),
                               same_site=True)  # (no entry at all: a print version's)
    assert ev.listing_links(([], ["/t/1"])) is None
    # (a page of one or two entries is no listing met again: it holds them for this rule alone)
    assert ev.is_listing(before) and not ev.is_listing(last)
    # a link's fragment and the parameters that name a visit do not make it another link
    assert np.array_equal(ev.link_bits(["/t/a?sid=9f2c#replies", "/t/b?utm_source=x&id=2",
                                        "/t/c;jsessionid=0F1E?x=1"]),
                          ev.link_bits(["/t/a", "/t/b?id=2", "/t/c?x=1"]))
    assert not np.array_equal(ev.link_bits(["/t/b?id=2"]), ev.link_bits(["/t/b?id=3"]))
    back = ev.Evidence.from_bytes(after.to_bytes())
    assert back == after and np.array_equal(back.links, after.links)
    # evidence stored without the links reads, and tells nothing of entries
    older = ev.Evidence.from_bytes(dataclasses.replace(after, links=None).to_bytes())
    assert older is not None and older.links is None
    assert not ev.entries_part(before, older, same_site=True)


def test_named_title_reads_the_text_as_its_words():
    text_words = ev.text_hashes("Ships from Zürich; snake_case and apples")[2]
    title, named = ev.named_title("Zurich Apples snake_case Berlin", text_words)
    bits = {word: bool(named >> i & 1) for i, (_, word) in
            enumerate(ev._title_words("Zurich Apples snake_case Berlin"))}
    # "zurich" is named by "Zürich" only where the title spells it so; a word the text splits
    # is named when the text names every part
    assert bits == {"zurich": False, "apples": True, "snake_case": True, "berlin": False}
    assert ev.named_title("Zürich", text_words)[1] == 1
    assert ev.named_title("Zürich", np.empty(0, dtype=np.uint64))[1] == 0
    for odd in ("__", "_", "ǅ", "a_b c_d", "snake_oil", ""):  # words the text's hashing splits
        assert ev.named_title(odd, text_words)[1] == 0
    assert ev.named_title("苹果 Apple", ev.text_hashes("新苹果")[2])[1] != 0
    assert np.array_equal(title, ev.title_hashes("Zurich Apples snake_case Berlin"))


def test_titles_hold_the_words_code_versions_and_dates_join():
    words = {word for _, word in ev._title_words("Tessera 2.3.1 release notes")}
    assert words == {"tessera", "2", "3", "1", "2.3.1", "release", "notes"}
    words = {word for _, word in ev._title_words("Client.get_object | SDK")}
    assert words == {"client", "get_object", "client.get_object", "sdk"}
    # "2.3.1" and "2.3.11", "2025-03-12" and "2025-12-03": each title has a word the other lacks
    for a, b in (("Tessera 2.3.1", "Tessera 2.3.11"), ("On 2025-03-12", "On 2025-12-03")):
        assert ev._each_lacks(ev.title_hashes(a), ev.title_hashes(b), ev.TITLE_SKETCH_SIZE)
    # a compound is named when the text names its parts (wherever they are)
    text_words = ev.text_hashes("Tessera 2.3.1 was released on 3 February")[2]
    _, named = ev.named_title("Tessera 2.3.1 release notes", text_words)
    bits = {word: bool(named >> i & 1) for i, (_, word) in
            enumerate(ev._title_words("Tessera 2.3.1 release notes"))}
    assert bits == {"tessera": True, "2": True, "3": True, "1": True, "2.3.1": True,
                    "release": False, "notes": False}
    # a hyphen between spaces joins nothing
    assert "a-b" not in {word for _, word in ev._title_words("A - B")}


def test_short_texts_of_one_template_with_other_data_are_distinct():
    chair = "Oak dining chair 165 GBP solid oak and paper cord W 48 D 52 H 79 cm. Price"
    throw = "Wool throw 89 GBP undyed wool from Cumbria 130 x 180 cm dry clean only. Price"
    assert ev.confirms(short(SHELL, chair), short(SHELL, chair))
    assert not ev.confirms(short(SHELL, chair), short(SHELL, throw))
    # the same short text on two sites, with nothing else in common, is the same
    assert ev.confirms(short(SHELL, chair), short(SHELL, "Read more stories", OTHER_CHROME),
                       same_site=False)
    # nothing beside the text on one of them: a print version
    assert ev.confirms(short(SHELL, chair), short(SHELL, ""))
    assert not ev.confirms(short(SHELL, chair), ev.of_text(SHELL))  # a short and a long one


FOOTER = ("About us, careers, press, advertise with us, terms of use, privacy policy, cookie "
          "settings, accessibility, contact the newsroom, corrections, newsletters, podcasts, "
          "puzzles, weather, traffic, obituaries, classifieds, archive, sitemap, help centre.")


def test_the_same_short_text_beside_a_footer_and_beside_next_to_none_is_one_text():
    chair = "Oak dining chair 165 GBP solid oak and paper cord W 48 D 52 H 79 cm. Price"
    throw = "Wool throw 89 GBP undyed wool from Cumbria 130 x 180 cm dry clean only. Price"
    article = short(SHELL, chair, FOOTER)
    assert ev.shingle_hashes(FOOTER)[0].size >= ev.MIN_FOREIGN_CHROME
    # the other copy has next to no chrome: another template, though no URL says so
    copy = short(SHELL, throw, "Home. News.")
    assert ev.confirms(article, copy)
    # the same text and rests of other data beside one template stay distinct
    assert not ev.confirms(article, short(SHELL, throw, FOOTER))
    # ... and so does a page of the template whose little chrome is a part of the other's
    assert not ev.confirms(article, short(SHELL, throw, FOOTER.split(", terms")[0]))
    # two pages of next to no chrome tell nothing of their templates
    assert not ev.confirms(short(SHELL, chair, "Home. News. Sport. Weather."), copy)


def test_an_article_just_under_the_short_length_confirms_its_long_copy():
    article = " ".join(f"{PYTHON_A} {PYTHON_B} {SPANISH_A} {SPANISH_B}".split()[:330])
    copy = " ".join(article.split()[:290])  # a few closing lines fewer ("Source: ...")
    assert ev.shingle_hashes(copy)[1] < ev.SHORT_WORDS <= ev.shingle_hashes(article)[1]
    assert ev.confirms(short(copy, "Read more stories", OTHER_CHROME), evidence(article))
    # a short text that is only a part of the long one is not it
    part = " ".join(article.split()[:200])
    assert not ev.confirms(short(part, "Read more stories"), evidence(article))


def test_bytes_round_trip_and_refuse_other_versions():
    for original in (evidence(PYTHON_A), evidence("short text", weak=True),
                     short(SHELL, PYTHON_B), short(KETTLE.format(price=1, sku=2), ""),
                     titled(SHELL, "Oak dining chair | Lumen Home", "165 GBP"),
                     marked("Summit bottle\n" + SHELL + "500ml", heading="Summit bottle"),
                     ev.of_hashes(ev.shingle_hashes("Access denied")[0], 2, True,
                                  ev.title_hashes("Access denied | Lumen"))):
        data = original.to_bytes()
        back = ev.Evidence.from_bytes(data)
        assert back is not None
        assert back == original
        assert back.to_bytes() == data
        assert ev.confirms(back, original) == ev.confirms(original, original)
    data = evidence(PYTHON_A).to_bytes()
    assert ev.Evidence.from_bytes(bytes([ev.EVIDENCE_VERSION + 1]) + data[1:]) is None
    assert ev.Evidence.from_bytes(data[:-1]) is None
    assert ev.Evidence.from_bytes(b"") is None
    assert len(data) <= 20 + 4 * ev.SKETCH_SIZE


def test_jaccard_is_exact_for_small_sets():
    a = np.array([1, 2, 3, 4], dtype=np.uint32)
    b = np.array([3, 4, 5, 6], dtype=np.uint32)
    assert ev.jaccard(a, 4, b, 4) == pytest.approx(2 / 6)
    assert ev.jaccard(a, 4, a, 4) == 1.0
    assert ev.jaccard(a, 0, a, 4) == 0.0


@pytest.mark.parametrize("detector", [SimHashDetector()])
def test_is_duplicate_needs_the_evidence_as_well_as_the_distance(detector):
    a, b = detector.sign_text(PYTHON_A), detector.sign_text(PYTHON_A + " Indeed.")
    assert detector.is_duplicate(a, b)
    other = detector.sign_text(PYTHON_B)
    assert not detector.is_duplicate(a, other)
    # the bare fingerprints still compare by distance alone (the library's own contract)
    assert detector.is_duplicate(a.signature, b.signature)


def test_the_same_short_text_in_two_templates_is_one():
    chair = "Oak dining chair 165 GBP solid oak and paper cord W 48 D 52 H 79 cm. Price"
    other_site = short(SHELL, "Read more stories from our partners today, tomorrow and every "
                                "weekend in our printed edition", OTHER_CHROME)
    assert ev.confirms(short(SHELL, chair), other_site, same_site=False)
    # on one host, or hosts unknown, the chromes must tell two templates (these are too small)
    assert not ev.confirms(short(SHELL, chair), other_site, same_site=True)
    shop_chrome = ("Lumen Home sells lighting, furniture and homeware. Sign in to your account, "
                   "see your wishlist or open your basket. Delivery, returns and our guarantee.")
    paper_chrome = ("The Daily Ledger has printed news, sport, weather and puzzles since 1851. "
                    "Subscribe today, read the letters to the editor and the obituaries.")
    assert ev.confirms(short(SHELL, chair, shop_chrome),
                       short(SHELL, "Read more stories", paper_chrome), same_site=True)
    # pages of unknown sites with hardly any chrome tell nothing of their templates
    throw = "Wool throw 89 GBP undyed wool from Cumbria 130 x 180 cm dry clean only. Price"
    assert not ev.confirms(short(SHELL, chair, ""), short(SHELL, throw, ""))


def test_same_site_compares_hosts():
    assert ev.same_site("https://www.a.example/x", "http://a.example/y") is True
    assert ev.same_site("https://a.example/x", "https://b.example/x") is False
    # a site is its host and port (two services on one machine are two sites)
    assert ev.same_site("http://127.0.0.1:8001/a", "http://127.0.0.1:8002/a") is False
    assert ev.same_site("https://a.example:443/x", "https://a.example/y") is True
    assert ev.same_site("item-3", "https://a.example/x") is None
    assert ev.same_site(None, "https://a.example/x") is None


def test_urls_of_one_site_naming_two_versions_are_two_pages():
    assert ev.url_versions("https://d.example/docs/2.0/logging/?view=v3") == {"2.0", "v3"}
    assert ev.other_versions("https://d.example/docs/2.0/a/", "https://d.example/docs/1.1/a/")
    assert ev.other_versions("https://d.example/a?view=v1", "https://d.example/a?view=v3")
    # the latest release under a name, an id, a campaign's variant: no version of each side
    assert not ev.other_versions("https://d.example/docs/latest/a/", "https://d.example/docs/2.0/a/")
    assert not ev.other_versions("https://d.example/story/123", "https://d.example/story/456")
    assert not ev.other_versions("https://d.example/a?utm_content=v1",
                                 "https://d.example/a?utm_content=v2")
    # numbers with dots in other query values are no versions (an analytics id, a timestamp)
    assert not ev.other_versions("https://d.example/p?_ga=2.1234.5678.9",
                                 "https://d.example/p?_ga=2.999.5678.9")
    assert not ev.other_versions("https://d.example/p?t=1700000000.123", "https://d.example/p?t=17.5")
    assert ev.other_versions("https://d.example/p?version=1.2", "https://d.example/p?version=1.3")
    # on two sites a version names nothing of the other's
    assert not ev.other_versions("https://a.example/2.0/x", "https://b.example/1.0/x")
    assert not ev.other_versions(None, "https://d.example/2.0/x")


def test_urls_of_one_site_naming_two_days_are_two_pages():
    first = "https://e.example/events/sunday-jazz-brunch-20250216"
    assert ev.url_dates(first) == {"20250216"}
    assert ev.url_dates("https://e.example/2024/3/9/slug/?day=2024-03-10") == {
        "20240309", "20240310"}
    assert ev.other_dates(first, "https://e.example/events/sunday-jazz-brunch-20250223")
    assert ev.urls_part(first, "https://e.example/events/sunday-jazz-brunch-2025-02-23") == "dates"
    # one day on both sides, a day on one side only, ids, campaigns, two sites: no parting
    assert not ev.other_dates(first, first + "?utm_source=mail&utm_campaign=20250101")
    assert not ev.other_dates(first, "https://e.example/events/sunday-jazz-brunch")
    assert not ev.other_dates("https://e.example/p/12345678", "https://e.example/p/20251399")
    assert not ev.other_dates("https://e.example/2024/03/a", "https://e.example/2024/04/a")
    assert not ev.other_dates(first, "https://f.example/events/sunday-jazz-brunch-20250223")


def test_weak_pages_in_unrelated_parts_of_a_site_are_two_pages():
    notice = evidence("Scheduled maintenance: we will be back shortly. " * 4, weak=True)
    article = evidence(PYTHON_A)
    status, day = "https://d.example/status", "https://d.example/events/2026/06/11"
    # a maintenance notice served once in place of a day's events is not the status page
    assert ev.unrelated_paths(status, day)
    assert ev.urls_part(status, day, notice, notice) == "unrelated"
    # pages of one part of a site, pages of some text, or two sites: the texts decide
    assert ev.urls_part("https://d.example/events/1", day, notice, notice) is None
    assert ev.urls_part(status, day, article, article) is None
    assert ev.urls_part(status, "https://e.example/events/1", notice, notice) is None
    assert not ev.unrelated_paths("https://d.example/", "https://d.example/index.html?x=1")
    assert ev.urls_part("https://d.example/docs/2.0/a/", "https://d.example/docs/1.1/a/",
                        article, article) == "versions"


def test_weak_pages_that_lead_to_two_pages_are_two_gates():
    gate = evidence("You must be of legal drinking age to enter this part of the shop. " * 2,
                    weak=True)
    article = evidence(PYTHON_A)
    wine, other = ("https://w.example/age-check/?next=/wine/101/",
                   "https://w.example/age-check/?next=/wine/103/")
    # an age check or a consent wall in front of each of two pages: dropped, one would take
    # its page with it
    assert ev.urls_part(wine, other, gate, gate) == "destinations"
    assert ev.other_destinations("https://w.example/consent?continue=https://w.example/n/1",
                                 "https://w.example/consent?continue=https://w.example/n/2")
    # one destination (a last slash aside), values that are no paths, a campaign's, two sites,
    # or pages of some text: the texts decide
    assert not ev.other_destinations(wine, wine.rstrip("/"))
    assert not ev.other_destinations("https://w.example/a?next=2", "https://w.example/a?next=3")
    assert not ev.other_destinations("https://w.example/a?ref=/x", "https://w.example/a?ref=/y")
    assert not ev.other_destinations(wine, other.replace("w.example", "v.example"))
    assert ev.urls_part(wine, other, article, article) is None
    assert ev.urls_part(wine, other, gate, gate, pages=False) is None


def test_numbers_in_cjk_numerals_are_figures():
    def count(text: str) -> int:
        return len(ev.numeral_hashes(text))

    assert count("最高气温二十三度，最低气温十六度") == 2
    assert count("三月十一日") == 2  # 三月 (a numeral and its unit), 十一
    assert count("偏东风二到三级") == 1  # 三级; 二 alone is no number
    assert count("一个统一的标准") == 0  # 一 alone is a word
    assert not np.array_equal(ev.numeral_hashes("二十三度"), ev.numeral_hashes("二十六度"))


def marked(main: str, heading: str = "", rest: str = "", chrome: str = CHROME) -> ev.Evidence:
    """A short page's evidence with its marks (its main text's figures and heading's words)."""
    main_hashes, words, _, figures = ev.text_hashes(main)
    figures = np.union1d(figures, ev.numeral_hashes(main))
    return ev.of_short(main_hashes, words, ev.shingle_hashes(rest)[0],
                       ev.shingle_hashes(chrome)[0], ev.figure_hashes(f"{main}\n{rest}"),
                       marks=ev.mark_bits(figures, ev.heading_hashes(heading)))


FORECAST = ("江城天气预报\n市气象台发布三月{day}日天气预报：今天白天多云，偏东风二到三级，"
            "最高气温{high}度；今天夜间最低气温{low}度。请市民注意天气变化，合理安排出行。"
            "【免责声明】本预报由市气象台提供，仅供参考。如遇灾害性天气，请以气象部门发布的"
            "预警信息为准。")
SHIPPING = ("Orders before 2pm ship the same day. Delivery takes 2-4 days, free over $50; express "
            "$9.90 (order by 11am, 1-day). Returns within 30 days, refunds within 5 days; EU 3-5 "
            "days, UK 4-6 days, US 5-8 days, CH 6-9 days; call 1-800-555-0199, 24/7, 365 days. ")


def test_short_texts_with_other_figures_are_two_however_many_they_share():
    # a forecast in Chinese numerals: no digit anywhere
    one = marked(FORECAST.format(day="十一", high="二十三", low="十六"))
    other = marked(FORECAST.format(day="十二", high="二十六", low="十八"))
    assert not ev.confirms(one, other, same_site=True)
    # a capacity among more shared figures than a sketch of figures keeps
    bottle = "Summit bottle. Capacity {0}. Height {1}. Weight {2}. " + SHIPPING
    small = marked(bottle.format("500ml", "24cm", "310g"))
    large = marked(bottle.format("1L", "31cm", "450g"))
    assert not ev.confirms(small, large, same_site=True)
    # a counter ("17 people are looking") is one figure: a copy with another count is the same
    counted = "Summit bottle. {0} people are looking at this. " + SHIPPING
    assert ev.confirms(marked(counted.format(11)), marked(counted.format(17)), same_site=True)
    # another heading over the same text: another page, on one site or, as headings of one
    # kind, on two (a mirror's forecast of another city)
    text = "\nThe Trail Runner 3 is our lightest trail shoe yet, with a breathable mesh upper. " * 3
    red = marked("Trail Runner 3 Red" + text, heading="Trail Runner 3 Red")
    green = marked("Trail Runner 3 Forest Green" + text, heading="Trail Runner 3 Forest Green")
    assert not ev.confirms(red, green, same_site=True)
    assert not ev.confirms(red, green, same_site=False)
    assert ev.confirms(red, marked("Trail Runner 3 Red" + text, heading="Trail Runner 3 Red"),
                       same_site=False)
    # two sites' names share no word: not headings of one kind
    herald = marked("Harbour Herald" + text, heading="Harbour Herald", rest="Read more")
    daily = marked("Coast Daily" + text, heading="Coast Daily", rest="Sign up", chrome=OTHER_CHROME)
    assert ev.confirms(herald, daily, same_site=False)


def test_titles_of_one_site_in_two_templates_need_nearly_one_text():
    story = ("Nordwind was born in 1987 in a small workshop at the foot of the Alps, where two "
             "climbing friends began sewing rucksacks for their own expeditions. We still design "
             "every product in our studio and test it on the same mountains. ") * 2
    mug_text = f"Enamel camp mug. A 350 ml enamel mug for campfire and dishwasher. {story}"
    mug = titled(mug_text, "Enamel camp mug | Nordwind")
    # another product's quick view, in a template of its own, sharing the brand's story
    beanie = titled(f"Merino beanie. Soft merino that does not itch. {story}", "Merino beanie",
                    chrome=OTHER_CHROME)
    assert not ev.confirms(mug, beanie, same_site=True)
    # the mug's print version: another title's decoration, nearly all of the same text
    printed = titled(mug_text, "Enamel camp mug (Print)", chrome=OTHER_CHROME)
    assert ev.confirms(mug, printed, same_site=True)


def test_the_largest_evidence_fits_what_an_index_stores():
    from scrapy_simhash.index.base import MAX_EVIDENCE_BYTES

    def full(size: int) -> np.ndarray:
        return np.arange(1, size + 1, dtype=np.uint32)

    # a short page with every part at its largest: sketches full, figures, title, marks,
    # links, comments
    largest = ev.Evidence(
        full(ev.SKETCH_SIZE), 500, 200, rest=full(ev.SKETCH_SIZE), rest_size=500,
        chrome=full(ev.CHROME_SKETCH_SIZE), chrome_size=500,
        figures=full(ev.FIGURES_SKETCH_SIZE), title=full(ev.TITLE_SKETCH_SIZE),
        marks=np.full(2 * ev.MARK_BITS // 32, 0xFFFFFFFF, dtype=np.uint32),
        links=np.full(2 * ev.LINK_BITS // 32, 0xFFFFFFFF, dtype=np.uint32),
        comments=full(ev.COMMENTS_SKETCH_SIZE), comments_size=500,
        embeds=full(ev.EMBEDS_SKETCH_SIZE), selections=full(ev.SELECTIONS_SKETCH_SIZE),
    )
    data = largest.to_bytes()
    assert len(data) > 1024  # (the bound before: a listing's links made it too small)
    assert len(data) <= MAX_EVIDENCE_BYTES
    back = ev.Evidence.from_bytes(data)
    assert back is not None and np.array_equal(back.links, largest.links)


def test_a_short_and_a_long_page_of_one_site_are_two_under_titles_the_long_one_names():
    # one episode of a series beside another: one long description, one of them with a
    # sentence of its own that takes it over SHORT_WORDS words
    description = " ".join(f"Note {n} of the channel's long description." for n in range(41))
    first = ("Episode 1: Washed Ashore. We wake up on a beach with nothing but a wooden boat and "
             f"an old map. {description}")
    second = f"Episode 2: The Driftwood Hut. {description}"
    one = long_page(first, "Saltwater Isles Episode 1: Washed Ashore")
    two = titled(second, "Saltwater Isles Episode 2: The Driftwood Hut")
    assert not one.short and two.short
    assert not ev.confirms(one, two, same_site=True)
    assert not ev.confirms(two, one, same_site=True)
    # a shorter copy of one page under its title, or with a word more ("Print"), is that page;
    # on two sites each title names its own site: titles are not compared
    assert ev.confirms(one, titled(first[:-80], "Saltwater Isles Episode 1: Washed Ashore"),
                       same_site=True)
    assert ev.confirms(one, titled(first[:-80], "Print: Saltwater Isles Episode 1: Washed "
                                                "Ashore"), same_site=True)
    assert ev._mixed_titles_part(one, two, same_site=True)
    assert not ev._mixed_titles_part(one, two, same_site=False)


def test_pages_of_one_articles_comments_are_two_pages():
    # an article's ?cpage=2 and ?cpage=3: the same article, other comments
    def comment_page(first: int, count: int = 8, **changes) -> ev.Evidence:
        text = " ".join(f"Reader {n} says the starter number {n} rose overnight." for n in
                        range(first, first + count))
        return long_page(PYTHON_A, "Sourdough starter | Crumbs", ("Leave a reply",),
                         comments=text, **changes)

    second, third = comment_page(8), comment_page(16)
    assert ev.comments_part(second, third)
    assert not ev.confirms(second, third, same_site=True)
    assert ev.confirms(second, third, same_site=False)  # (two sites: each its own readers)
    # the page fetched again after new comments holds the old ones: the same page
    later = comment_page(8, count=10)
    assert not ev.comments_part(second, later) and ev.confirms(second, later, same_site=True)
    # a copy without comments (a print version) says nothing of them
    assert ev.confirms(second, long_page(PYTHON_A, "Sourdough starter | Crumbs",
                                         ("Leave a reply",)), same_site=True)
    back = ev.Evidence.from_bytes(third.to_bytes())
    assert back == third and back.comments_size == third.comments_size > 0
    # evidence stored without comments reads as before; an unknown part is another version
    older = dataclasses.replace(third, comments=None, comments_size=0)
    assert ev.Evidence.from_bytes(older.to_bytes()).comments is None
    data = bytearray(third.to_bytes())
    data[0] |= 0x80
    assert ev.Evidence.from_bytes(bytes(data)) is None


def test_pages_that_embed_other_documents_are_two_pages():
    # one shell of a site around another article in a frame, another report's PDF
    shell = ("Reader mode is on. The article below is shown in a frame; use the buttons to "
             "change the text size or print it.")
    weak = ev.of_hashes(*ev.shingle_hashes(shell), True, ev.title_hashes("Reader"),
                        embeds=ev.embed_codes(["/content/3"]))
    other = dataclasses.replace(weak, embeds=ev.embed_codes(["/content/4?lang=en"]))
    assert ev.embeds_part(weak, other, same_site=True)
    assert not ev.confirms(weak, other, same_site=True)
    assert ev.confirms(weak, other, same_site=None)  # (two sites, or not known: not compared)
    # a copy embeds the same (an ad server's frame asks for another ad: its query aside), or
    # nothing (a print version)
    ads = [f"https://ads.example/frame?slot=top&correlator={n}" for n in (1, 2)]
    assert ev.embed_codes([ads[0], "/content/3"]).tolist() == \
        ev.embed_codes([ads[1], "/content/3"]).tolist()
    # a viewer's document is in its query; a relative source is the page's site's
    viewer = "https://docs.example/viewer?url=https://a.example/r{}.pdf"
    one, two = (ev.embed_codes([viewer.format(n)]).tolist() for n in (1, 2))
    assert one != two
    assert ev.embed_codes(["/content/3"], "https://a.example/read/3").tolist() == \
        ev.embed_codes(["https://a.example/content/3"]).tolist()
    assert ev.confirms(weak, dataclasses.replace(weak, embeds=ev.embed_codes(
        ["/content/3", ads[1]])), same_site=True)
    assert ev.confirms(weak, dataclasses.replace(weak, embeds=None), same_site=True)
    assert ev.embed_codes([]) is None
    # short pages alike
    one = dataclasses.replace(titled(KETTLE.format(price=30, sku=1), "Kettle"),
                              embeds=ev.embed_codes(["https://video.example/embed/a1"]))
    two = dataclasses.replace(one, embeds=ev.embed_codes(["https://video.example/embed/b2"]))
    assert ev.confirms(one, one, same_site=True) and not ev.confirms(one, two, same_site=True)
    for evidence in (other, two):
        back = ev.Evidence.from_bytes(evidence.to_bytes())
        assert back == evidence and back.embeds is not None
    # evidence stored without them reads as before; a long page stores none
    older = dataclasses.replace(two, embeds=None)
    assert ev.Evidence.from_bytes(older.to_bytes()).embeds is None
    long = long_page(PYTHON_A, "Sourdough starter | Crumbs")
    assert ev.Evidence.from_bytes(dataclasses.replace(
        long, embeds=ev.embed_codes(["/x"])).to_bytes()).embeds is None


def test_url_words_are_what_a_url_selects():
    assert ev.url_words("https://a.example/sv/pollenprognos?ort=uppsala&utm_source=x&sid=9"
                        "&view=full&fbclid=IwAR12") == {"uppsala"}
    assert ev.url_words("https://a.example/leaflet?strength=100mg") == {"100"}
    assert ev.url_words("https://a.example/story/print") == set() and ev.url_words(None) == set()
    # a slug writes a name without its accents, and so does the text's reading of it
    assert ev.url_words("https://a.example/pollen?ort=G%C3%B6teborg") == {"goteborg"}
    assert ev.named_selections("https://a.example/pollen?ort=goteborg",
                               "Prognos för Göteborg").tolist() == [zlib.crc32(b"goteborg")]


def test_pages_whose_text_names_what_their_urls_select_are_two_pages():
    # one city's pollen levels beside another's: the city in a body line and the URL alone
    def pollen(city: str, url: str) -> tuple[ev.Evidence, str]:
        text = (f"Pollen forecast for {city}. Birch pollen levels are high today and will stay "
                "high tomorrow; grass pollen is low. Keep windows closed in the morning.")
        evidence = titled(text, "Pollen forecast")
        return dataclasses.replace(evidence, selections=ev.named_selections(url, text)), url

    (a, url_a), (b, url_b) = (pollen("Uppsala", "https://p.example/pollen?ort=uppsala"),
                              pollen("Stockholm", "https://p.example/pollen?ort=stockholm"))
    assert ev.other_selections(url_a, url_b, a, b)
    assert ev.urls_part(url_a, url_b, a, b) == "selections"
    assert not ev.other_selections(url_a, "https://q.example/pollen?ort=stockholm", a, b)
    # a copy's URL differs by what its text never names: a campaign, "print", "amp"
    for copy in ("https://p.example/pollen?ort=uppsala&utm_campaign=spring",
                 "https://p.example/pollen?ort=uppsala&print=1&view=full",
                 "https://p.example/amp/pollen?ort=uppsala"):
        same, _ = pollen("Uppsala", copy)
        assert not ev.other_selections(url_a, copy, a, same)
    # a page whose text does not name its URL's word says nothing
    unnamed = dataclasses.replace(b, selections=None)
    assert not ev.other_selections(url_a, url_b, a, unnamed)
    back = ev.Evidence.from_bytes(a.to_bytes())
    assert back == a and back.selections is not None
    long = dataclasses.replace(long_page(PYTHON_A, "Sourdough starter"),
                               selections=ev.named_selections("https://c.example/?q=sourdough",
                                                              "Sourdough"))
    assert ev.Evidence.from_bytes(long.to_bytes()) == long


def test_pages_of_one_site_under_other_query_values_and_other_texts_are_two_pages():
    # a status page per region: the region's name in a word of the text's own, its code alone
    # in the URL
    def status(region: str) -> ev.Evidence:
        return titled(f"Showing status for the {region} region. All systems operational: "
                      "compute, storage, databases and networking.", "Cloud status")

    fra, syd = status("Frankfurt"), status("Sydney")
    url_fra, url_syd = ("https://s.example/status?region=fra1", "https://s.example/status?region=syd1")
    assert ev.other_choices(url_fra, url_syd, fra, syd)
    assert ev.urls_part(url_fra, url_syd, fra, syd) == "choices"
    # (on another path too); the same text under two values (an empty filter's, a session's of
    # a name of its own), another site, or a parameter of a campaign or a presentation: no
    # choice made
    assert not ev.other_choices(url_fra, url_syd, fra, status("Frankfurt"))
    assert ev.other_choices(url_fra, "https://s.example/status/v2?region=syd1", fra, syd)
    assert not ev.other_choices(url_fra, "https://t.example/status?region=syd1", fra, syd)
    # the default's page, on the same path (a last slash or case aside), chooses nothing
    assert ev.other_choices("https://s.example/status", url_syd, fra, syd)
    # and so does a URL under a campaign's parameter of a site's own name, or a value that
    # names a reader's channel
    for query in ("smid=tw-share", "mod=rss_Top_Stories", "xtor=RSS-3208", "from=newsletter",
                  "s=email", "guce_referrer=aHR0", "fb_action_ids=1"):
        assert not ev.other_choices("https://s.example/status",
                                    f"https://s.example/status?{query}", fra, syd), query
    assert ev.other_choices("https://s.example/status",
                            "https://s.example/status?topic=shareholders", fra, syd)
    assert ev.other_choices(url_fra, "https://s.example/Status/", syd, fra)
    assert not ev.other_choices("https://s.example/status/all", url_syd, fra, syd)
    assert not ev.other_choices("https://s.example/status", url_syd, fra, status("Frankfurt"))
    assert not ev.other_choices("https://s.example/status?utm_source=x", "https://s.example/status",
                                fra, syd)
    for key in ("utm_source", "sort", "view", "page", "sid", "ref", "session", "mc_cid", "_ga",
                "replytocom", "preview", "token", "rev", "oldid"):
        assert not ev.other_choices(f"https://s.example/status?{key}=a",
                                    f"https://s.example/status?{key}=b", fra, syd), key
    assert not ev.other_choices(url_fra, url_syd, fra, None)
    # a copy that adds a block to the same text under another value keeps the other's text
    grown = titled("Showing status for the Frankfurt region. All systems operational: compute, "
                   "storage, databases and networking. Subscribe to updates by email.",
                   "Cloud status")
    assert not ev.other_choices("https://s.example/status?region=fra1&s=1",
                                "https://s.example/status?region=fra1&s=2", fra, grown)
    assert ev.other_choices("https://s.example/status?region=fra1&s=1",
                            "https://s.example/status?region=fra1&s=2", fra, status("Sydney"))


def test_one_pages_editions_for_two_locales_or_releases_with_other_texts_are_two_pages():
    # terms of sale per country: another seller in a sentence, the locale in the path or in a
    # language parameter
    def terms(seller: str) -> ev.Evidence:
        return titled(f"This website is operated by {seller}. Prices include tax. Orders are "
                      "accepted when we send the confirmation email.", "Terms of sale")

    gb, au = terms("Lumen Home Ltd"), terms("Lumen Home Pty Ltd")
    for url_gb, url_au in (("https://s.example/en-gb/terms", "https://s.example/en-au/terms"),
                           ("https://s.example/EN_GB/terms", "https://s.example/en_AU/terms"),
                           ("https://s.example/uk/help/terms", "https://s.example/au/help/terms"),
                           ("https://s.example/terms?lang=en-gb", "https://s.example/terms?lang=en-au"),
                           ("https://s.example/terms?hl=es-419&x=1", "https://s.example/terms?x=1&hl=es-es")):
        assert ev.other_editions(url_gb, url_au, gb, au), url_gb
        assert ev.urls_part(url_gb, url_au, gb, au) == "editions"
    url_gb, url_au = "https://s.example/en-gb/terms", "https://s.example/en-au/terms"
    # one text under two locales (an article in two regions' sections), another site, paths
    # apart in more than the locale, a part that names no locale, two locales apart at once
    assert not ev.other_editions(url_gb, url_au, gb, terms("Lumen Home Ltd"))
    assert not ev.other_editions(url_gb, "https://t.example/en-au/terms", gb, au)
    assert not ev.other_editions(url_gb, "https://s.example/en-au/terms-of-sale", gb, au)
    assert not ev.other_editions("https://s.example/shop/terms", "https://s.example/help/terms",
                                gb, au)
    assert not ev.other_editions(url_gb, "https://s.example/en-gb/terms?x=2", gb, au)
    assert not ev.other_editions("https://s.example/en-gb/terms?lang=en",
                                "https://s.example/en-au/terms?lang=fr", gb, au)
    assert not ev.other_editions("https://s.example/terms?lang=en-gb", "https://s.example/terms",
                                gb, au)
    assert not ev.other_editions(url_gb, "https://s.example/EN-GB/terms", gb, au)
    assert not ev.other_editions(url_gb, url_au, gb, None)
    # one name's sites under two top-level domains: the same path, or one naming its locale
    for site_gb, site_au in (
        ("https://lumenhome.co.uk/help/terms", "https://www.lumenhome.com.au/help/terms"),
        ("https://lumenhome.co.uk/en-gb/terms", "https://lumenhome.com/en-au/terms"),
        ("https://shop.lumenhome.ie/terms", "https://shop.lumenhome.de/terms"),
    ):
        assert ev.other_editions(site_gb, site_au, gb, au), site_gb
        assert ev.urls_part(site_gb, site_au, gb, au) == "editions"
    uk = "https://lumenhome.co.uk/help/terms"
    assert not ev.other_editions(uk, "https://lumenhome.com.au/help/terms", gb,
                                 terms("Lumen Home Ltd"))
    for other in ("https://lumenhome.com.au/help/terms-of-sale",
                  "https://lampstore.com.au/help/terms", "https://shop.lumenhome.co.uk/help/terms",
                  "https://lumenhome.com.au/en-au/5.0/terms", "http://127.0.0.2/help/terms"):
        assert not ev.other_editions(uk, other, gb, au), other
    assert ev.sibling_sites("https://a.example.co.uk/", "https://a.example.com/")
    assert ev.sibling_sites("https://uk.lumenhome.com/", "https://ie.lumenhome.com/")
    assert not ev.sibling_sites("https://shop.lumenhome.com/", "https://blog.lumenhome.com/")
    assert not ev.sibling_sites("https://uk.lumenhome.com/", "https://lumenhome.com/")
    assert not ev.sibling_sites("https://a.example.co.uk/", "https://b.example.co.uk/")
    assert not ev.sibling_sites("http://127.0.0.1:8000/", "http://127.0.0.2:8000/")
    # a print or AMP presentation aside
    assert ev.other_editions("https://s.example/en-gb/terms/print", url_au, gb, au)
    assert ev.other_editions("https://s.example/amp/en-gb/terms/", url_au, gb, au)
    assert not ev.other_editions("https://s.example/en-gb/terms/print", url_gb, gb, au)
    # a release beside another or beside its alias; an alias alone is no release
    for docs_a, docs_b in (("/docs/5.0/workers", "/docs/latest/workers"),
                           ("/docs/Stable/workers", "/docs/v5.1/workers"),
                           ("/docs/5.0/workers", "/docs/5.2/workers")):
        assert ev.other_editions(f"https://s.example{docs_a}", f"https://s.example{docs_b}",
                                 gb, au), docs_a
    assert ev.other_editions("https://s.example/docs/latest/workers",
                             "https://s.example/docs/stable/workers", gb, au)
    assert ev.other_editions("https://s.example/docs/7.x/workers",
                             "https://s.example/docs/current/workers", gb, au)
    assert not ev.other_editions("https://s.example/docs/guide/workers",
                                 "https://s.example/docs/stable/workers", gb, au)
    assert not ev.other_editions("https://s.example/docs/5.0/workers",
                                 "https://s.example/docs/guide/workers", gb, au)
    assert not ev.other_editions("https://s.example/docs/5.0/workers",
                                 "https://s.example/docs/latest/workers", gb,
                                 terms("Lumen Home Ltd"))

def test_pages_of_one_site_that_declare_two_canonical_urls_are_two_pages():
    url = "https://shop.example/en-gb/terms"
    code = ev.canonical_code("https://shop.example/en-gb/terms", url)
    # as a copy may echo its own URL: relative, another scheme, host case, a last slash, a
    # campaign's, a visit's or a presentation's parameters
    for same in ("/en-gb/terms", "http://SHOP.example/en-gb/terms/",
                 "https://shop.example/en-gb/terms?utm_source=x&fbclid=1&sid=9&view=full",
                 " https://shop.example/en-gb/\nterms ", "https://www.shop.example/en-gb/terms",
                 "https://shop.example:443/en-gb/terms", "/EN-GB/Terms", "/en-gb/terms/index.html",
                 "/en-gb/terms;jsessionid=0F1E", "/en-gb/%74erms",
                 "/en-gb/terms?mc_cid=1&mc_eid=2&_ga=3&igshid=4&srsltid=5&_hsenc=6&session=7"
                 "&replytocom=8&preview=1"):
        assert ev.canonical_code(same, url) == code, same
    assert ev.canonical_code("https://shop.example:8080/en-gb/terms", url) != code
    assert (ev.canonical_code("/item?b=2&a=1", url) == ev.canonical_code("/item?a=1&b=2", url))
    assert ev.canonical_code("/en-ie/terms", url) != code
    assert ev.canonical_code("/terms?country=ie", url) != ev.canonical_code("/terms?country=gb",
                                                                              url)
    for none in (None, "", "  ", "mailto:a@b.example", "javascript:void(0)"):
        assert ev.canonical_code(none, url) is None
    text = ("These terms apply to every order you place on this website. Please read them "
            "carefully before you order: by placing an order you agree to them.")
    gb = dataclasses.replace(titled(text, "Terms of sale"), canonical=code)
    ie = dataclasses.replace(gb, canonical=ev.canonical_code("/en-ie/terms", url))
    assert ev.other_canonicals(gb, ie)
    assert not ev.confirms(gb, ie, same_site=True)
    assert ev.confirms(gb, ie, same_site=None) and ev.confirms(gb, ie, same_site=False)
    # a copy declares the page it copies, or nothing (a print version)
    assert ev.confirms(gb, dataclasses.replace(ie, canonical=code), same_site=True)
    assert ev.confirms(gb, dataclasses.replace(ie, canonical=None), same_site=True)
    # the bytes carry it; evidence without one is stored as before
    back = ev.Evidence.from_bytes(gb.to_bytes())
    assert back == gb and back.canonical == code
    plain = dataclasses.replace(gb, canonical=None, lines=None)
    assert plain.to_bytes()[0] & 0x0F == ev.EVIDENCE_VERSION
    assert ev.Evidence.from_bytes(plain.to_bytes()).canonical is None
    assert ev.Evidence.from_bytes(gb.to_bytes()[:-1]) is None
    # ... and its lines, with or without a canonical URL
    for lined in (dataclasses.replace(gb, canonical=None), gb):
        back = ev.Evidence.from_bytes(lined.to_bytes())
        assert back == lined and np.array_equal(back.lines, gb.lines)
        assert back.canonical == lined.canonical
        assert ev.Evidence.from_bytes(lined.to_bytes()[:-1]) is None


def test_field_lines_are_names_beside_a_label():
    def fields(*lines: str) -> int:
        codes = ev.field_codes(lines)
        return 0 if codes is None else len(codes)

    assert fields("Region: Seoul") == 1
    assert fields("지역: 경기 북부", "Modelo: Cruze Sport") == 4
    assert fields("担当：佐々木", "Ort: Köln, Deutschland") == 3 + 2
    # figures are figures, prose and headlines are no names, a paragraph is no field line
    assert not fields("Price: 12 EUR", "Updated: 3 May", 'He said: "yes".')
    assert not fields("表现一：对外在的自我满意度较高。",
                      "原标题：春季学期开学，织密返校疫情防控网")
    assert not fields("Part One: The Long Wars in Heaven and on Earth")
    assert not fields("Note: " + "the branch is closed for refurbishment " * 3)
    # one label, case folded, whatever its spacing
    assert ev.field_codes(["Region : Seoul"]).tolist() == ev.field_codes(["region: seoul"]).tolist()


def _with_fields(*lines: str) -> ev.Evidence:
    return ev.Evidence(ev.sketch(ev.shingle_hashes(PYTHON_A)[0]), 1, 1,
                       fields=ev.field_codes(lines))


def test_another_value_of_one_field_makes_two_pages_on_one_site():
    seoul = _with_fields("지역: 서울", "발표: 기상청")
    incheon = _with_fields("지역: 인천", "발표: 기상청")
    assert ev.fields_part(seoul, incheon, same_site=True)
    assert not ev.fields_part(seoul, incheon, same_site=None)  # (each site names its own)
    assert ev.fields_part(_with_fields("Branch: Leeds City Centre"),
                          _with_fields("Branch: Leeds Headingley"), same_site=True)
    # a copy keeps its fields, or lacks them, or gains one; an edit changes a word of a name,
    # not the name ("Leeds City Centre", "Leeds Town Centre")
    for copy in (_with_fields("지역: 서울", "발표: 기상청"), _with_fields("발표: 기상청"),
                 dataclasses.replace(seoul, fields=None),
                 _with_fields("지역: 서울", "발표: 기상청", "구분: 주의보")):
        assert not ev.fields_part(seoul, copy, same_site=True)
    assert not ev.fields_part(_with_fields("Branch: Leeds City Centre"),
                              _with_fields("Branch: Leeds Town Centre"), same_site=True)
    assert ev.fields_part(_with_fields("Modelo: Onix"), _with_fields("Modelo: Onix Plus"),
                          same_site=True)  # (a name and a word more: another model)
    assert not ev.fields_part(_with_fields("Branch: Leeds City Centre"),
                              _with_fields("Branch: Leeds Centre"), same_site=True)
    # stored and read back; evidence stored without fields reads as before
    long = ev.of_long(ev.shingle_hashes(PYTHON_A)[0], 200, fields=seoul.fields)
    assert ev.Evidence.from_bytes(long.to_bytes()).fields.tolist() == seoul.fields.tolist()
    assert ev.Evidence.from_bytes(dataclasses.replace(long, fields=None).to_bytes()) == \
        dataclasses.replace(long, fields=None)
    assert ev.Evidence.from_bytes(long.to_bytes()[:-1]) is None


def test_a_full_field_sketch_compares_only_the_labels_it_holds_whole():
    many = [f"{label}: {value}" for label in ("Alpha", "Beta", "Gamma", "Delta", "Kappa",
                                                  "Sigma", "Omega", "Theta", "Lambda")
            for value in ("red green blue", "one two three four")]
    full = ev.field_codes(many)
    assert len(full) == ev.FIELDS_SKETCH_SIZE
    last = int(full[-1]) >> 16
    # the last label's words may be cut short: a page with fewer of them is not another page
    labels = {zlib.crc32(label.casefold().encode()) >> 16: label
              for label in ("Alpha", "Beta", "Gamma", "Delta", "Kappa", "Sigma", "Omega",
                            "Theta", "Lambda")}
    other = ev.Evidence(ev._EMPTY, 0, 0, fields=ev.field_codes(
        [f"{labels[last]}: {value}" for value in ("purple", "seven eight")]))
    assert not ev.fields_part(ev.Evidence(ev._EMPTY, 0, 0, fields=full), other, same_site=True)


def test_a_plus_or_a_hash_after_a_name_is_part_of_the_title_word():
    def words(title: str) -> set[str]:
        return {word for _, word in ev._title_words(title)}

    assert words("Galaxy S24+ (2 pack)") - words("Galaxy S24 (2 pack)") == {"s24+"}
    assert words("Online C++ Compiler") ^ words("Online C# Compiler") == {"c++", "c#"}
    assert "c" in words("Online C Compiler") and "disney+" in words("Disney+ Hotstar")
    assert words("News + Views") == {"news", "views"}  # (a "+" of its own is no word's)


def test_a_vietnamese_title_keeps_its_tones():
    assert ev.title_hashes("Chuyển nhà Phú Mỹ").tolist() != \
        ev.title_hashes("Chuyển nhà Phù Mỹ").tolist()
    # other titles compare without their accents ("Café" and "Cafe")
    assert ev.title_hashes("Café Zürich").tolist() == ev.title_hashes("Cafe Zurich").tolist()
    assert ev.title_hashes("Phú Mỹ").tolist() == ev.title_hashes("PHÚ MỸ").tolist()


def test_a_result_and_its_reverse_have_other_titles():
    def scores(title: str) -> set[str]:
        return set(ev._scores(ev._plain_title(title)))

    for written in ("Leeds 2–1 York", "Leeds 2-1 York", "Leeds 2 - 1 York", "Leeds 2 – 1 York",
                    "Leeds 2:1 York"):
        assert scores(written) == {"2-1"}, written
    # figures joined on to others are compounds, not scores
    assert not scores("Published 2025-03-12") and not scores("Release 1.2-3")
    assert ev._each_lacks(ev.title_hashes("Man City 2–1 Man Utd"),
                          ev.title_hashes("Man City 1–2 Man Utd"), ev.TITLE_SKETCH_SIZE)
    assert not ev._each_lacks(ev.title_hashes("Man City 2–1 Man Utd"),
                              ev.title_hashes("Man City 2–1 Man Utd | Print"),
                              ev.TITLE_SKETCH_SIZE)


def test_figures_joined_by_a_dash_keep_their_order():
    for one, two in (("2–1", "1–2"), ("2 - 1", "1 - 2"), ("2 – 1", "1 – 2")):
        assert ev._each_lacks(ev.figure_hashes(f"full time {one} at home"),
                              ev.figure_hashes(f"full time {two} at home"),
                              ev.FIGURES_SKETCH_SIZE), (one, two)
    # a dash between spaces joins figures only: "2 - Leeds" is two words
    assert len(ev.figure_hashes("round 2 - leeds")) == 1


def test_a_route_one_way_and_the_way_back_have_other_titles():
    def directed(title: str) -> set[str]:
        return {word for _, word in ev._title_words(title) if ">" in word}

    assert directed("Trains from Leeds to York") == {"leeds>york"}
    assert directed("USD → EUR converter") == {"usd>eur"}
    assert directed("दिल्ली से आगरा ट्रेन") == {"दिल्ली>आगरा"}
    assert directed("東京から大阪までの時刻表") == {"京>大"}
    assert directed("北京至天津列车时刻表") == {"京>天"}
    # the same words in the other order: each title has a word the other lacks
    assert ev._each_lacks(ev.title_hashes("London to Paris trains"),
                          ev.title_hashes("Paris to London trains"), ev.TITLE_SKETCH_SIZE)
    assert not ev._each_lacks(ev.title_hashes("London to Paris trains"),
                              ev.title_hashes("London to Paris trains (print)"),
                              ev.TITLE_SKETCH_SIZE)
