"""Pages of one template whose titles hold one another's: a recipe and its variants ("Banana
Bread", "Banana Walnut Bread") and terms of service per region ("Ireland", "Northern Ireland").
Neither title of such a pair has a word the other lacks; one has a word the other lacks, and
its own text says it (the walnuts, the region's law), or its text swaps a line or two for
others without naming it ("Vegan Chocolate Cake": oat milk and oil for the milk and butter)."""

from __future__ import annotations

from .chrome import Site, esc, links, render, slug

Page = tuple[str, str]

KITCHEN = Site(
    name="Sunday Oven",
    domain="www.sunday-oven.example",
    tagline="Baking at home, one loaf at a time",
    nav=("Breads", "Cakes", "Biscuits", "Pastry", "Basics", "Videos"),
)

BASE_INGREDIENTS = (
    "3 ripe bananas, mashed", "75 g melted butter", "150 g caster sugar", "1 egg, beaten",
    "1 tsp vanilla extract", "1 tsp bicarbonate of soda", "a pinch of salt", "190 g plain flour",
)
BASE_STEPS = (
    "Heat the oven to 175 C and butter a 900 g loaf tin.",
    "Stir the melted butter into the mashed bananas in a large bowl.",
    "Mix in the soda and salt, then the sugar, egg and vanilla.",
    "Fold in the flour until no dry streaks remain, without beating.",
    "Pour the batter into the tin and bake for about an hour, until a skewer comes out clean.",
    "Cool in the tin for ten minutes, then on a rack before slicing.",
)

#: (title, extra ingredients, extra step): the base recipe and variants whose titles hold its
VARIANTS = (
    ("Banana Bread", (), None),
    ("Banana Walnut Bread", ("100 g chopped walnuts",),
     "Toast the walnuts in a dry pan and fold them in with the last of the flour."),
    ("Banana Bread with Cinnamon Swirl", ("2 tbsp cinnamon sugar",),
     "Spoon half the batter into the tin, scatter the cinnamon sugar over it, add the rest and "
     "swirl once with a knife."),
    ("Chocolate Chip Banana Bread", ("100 g dark chocolate chips",),
     "Fold in the chocolate chips, keeping a handful to scatter over the top."),
    ("Vegan Banana Bread", ("60 ml oat milk", "75 ml sunflower oil"),
     "Use the oil in place of the butter and the oat milk in place of the egg."),
    ("Banana Bread Muffins", ("12 paper cases",),
     "Divide the batter between the cases and bake for 22 minutes only."),
    ("Gluten-Free Banana Bread", ("190 g gluten-free flour blend", "1/2 tsp xanthan gum"),
     "Use the gluten-free blend and xanthan gum in place of the plain flour."),
    ("Banana Oat Bread", ("80 g rolled oats",),
     "Stir in the oats and let the batter rest for ten minutes before baking."),
    ("Banana Bread with Dates", ("120 g chopped dates",),
     "Soak the dates in hot water for ten minutes, drain and fold them in."),
    ("Peanut Butter Banana Bread", ("3 tbsp smooth peanut butter",),
     "Beat the peanut butter into the melted butter before adding the bananas."),
)


def recipe_variants() -> list[Page]:
    """A banana bread and nine variants, short pages of one template: the ingredients and steps
    are the base recipe's with one or two more; each variant's title holds "Banana Bread"."""
    pages = []
    menu = links([(title, f"/recipes/{slug(title)}") for title, _, _ in VARIANTS], "recipes")
    for title, extra, step in VARIANTS:
        ingredients = "".join(f"<li>{esc(item)}</li>" for item in (*BASE_INGREDIENTS, *extra))
        steps = (*BASE_STEPS[:4], step, *BASE_STEPS[4:]) if step else BASE_STEPS
        method = "".join(f"<li>{esc(text)}</li>" for text in steps)
        main = (f'<article class="recipe"><h1>{esc(title)}</h1><p>Serves 8. Prep 15 minutes, '
                f"cook 60 minutes.</p><h2>Ingredients</h2><ul>{ingredients}</ul>"
                f"<h2>Method</h2><ol>{method}</ol></article>")
        pages.append((f"https://{KITCHEN.domain}/recipes/{slug(title)}",
                      render(KITCHEN, title=title, main=main, sidebar=menu,
                             breadcrumbs=[("Breads", "/breads")])))
    return pages


CAKE_INGREDIENTS = (
    "225 g plain flour", "350 g caster sugar", "85 g cocoa powder", "1.5 tsp baking powder",
    "1.5 tsp bicarbonate of soda", "2 large eggs", "250 ml whole milk", "125 ml vegetable oil",
    "2 tsp vanilla extract", "250 ml boiling water",
)
CAKE_STEPS = (
    "Heat the oven to 180 C and line two 20 cm sandwich tins with baking parchment.",
    "Sift the flour, cocoa, baking powder and soda into a large bowl and stir in the sugar.",
    "Whisk the wet ingredients but the water together, then beat them into the dry ones.",
    "Stir in the boiling water a little at a time until the batter is smooth and runny.",
    "Divide it between the tins and bake for 25 to 30 minutes, until the tops spring back.",
    "Cool in the tins for ten minutes, then turn out onto a rack and leave to cool completely.",
)
CAKE_NOTES = (
    "This is the cake we bake for every birthday in the test kitchen: a deep, moist sponge "
    "that keeps for days, made in one bowl with no creaming and no electric mixer. The batter "
    "is thin, almost like a pancake batter, and that is what makes the crumb so tender, so do "
    "not be tempted to add more flour.",
    "Fill and cover it with your favourite frosting, or simply dust the top with icing sugar "
    "and serve it with a spoonful of thick yoghurt and a few berries. It freezes well without "
    "its frosting: wrap each layer tightly and thaw it overnight at room temperature.",
    "If your oven runs hot, lower it by ten degrees and check the cakes a few minutes early. "
    "A skewer pushed into the middle should come out with a few moist crumbs but no wet "
    "batter. Leave the layers to cool completely before you fill them, or the frosting will "
    "melt and slide off the sides.",
)
#: (title, {base ingredient: its replacement}): the base cake and variants that swap an
#: ingredient or two for others, their titles holding "Chocolate Cake" and a word the text
#: never says ("vegan", "egg-free", "rich")
SWAPS = (
    ("Chocolate Cake", {}),
    ("Vegan Chocolate Cake", {"2 large eggs": "2 flax eggs soaked in cold water",
                              "250 ml whole milk": "250 ml oat drink with lemon juice"}),
    ("Egg-Free Chocolate Cake", {"2 large eggs": "2 portions of whisked chickpea water"}),
    ("Gluten-Free Chocolate Cake", {"225 g plain flour": "225 g buckwheat and rice flour"}),
    ("Dairy-Free Chocolate Cake", {"250 ml whole milk": "250 ml unsweetened almond drink"}),
    ("Mocha Chocolate Cake", {"250 ml boiling water": "250 ml hot strong espresso coffee"}),
    ("Rich Chocolate Cake", {"85 g cocoa powder": "85 g dark chocolate melted with cream"}),
    ("Light Chocolate Cake", {"350 g caster sugar": "350 g soft light muscovado sugar"}),
    ("Spiced Chocolate Cake", {"2 tsp vanilla extract": "2 tsp ground ginger, cloves and mace"}),
    ("Orange Chocolate Cake", {"2 tsp vanilla extract": "2 tsp finely grated navel zest"}),
)


def recipe_swaps() -> list[Page]:
    """A chocolate cake and nine variants, long pages (300 words and more) of one template whose
    titles hold "Chocolate Cake": each variant swaps one or two ingredients for others, and its
    text never says the word its title adds (the safer error for a copy decorated with "Print"
    is to be dropped; a variant must not be)."""
    pages = []
    menu = links([(title, f"/cakes/{slug(title)}") for title, _ in SWAPS], "cakes")
    method = "".join(f"<li>{esc(text)}</li>" for text in CAKE_STEPS)
    tips = "".join(f"<p>{esc(text)}</p>" for text in CAKE_NOTES[1:])  # (the first opens the page)
    for title, swap in SWAPS:
        ingredients = "".join(f"<li>{esc(swap.get(item, item))}</li>"
                              for item in CAKE_INGREDIENTS)
        main = (f'<article class="recipe"><h1>{esc(title)}</h1><p>Serves 12. Prep 20 minutes, '
                f"cook 30 minutes.</p><p>{esc(CAKE_NOTES[0])}</p><h2>Ingredients</h2>"
                f"<ul>{ingredients}</ul><h2>Method</h2><ol>{method}</ol>"
                f"<h2>Tips</h2>{tips}</article>")
        pages.append((f"https://{KITCHEN.domain}/cakes/{slug(title)}",
                      render(KITCHEN, title=title, main=main, sidebar=menu,
                             breadcrumbs=[("Cakes", "/cakes")])))
    return pages


CLOUD = Site(
    name="Lumen Cloud",
    domain="www.lumen-cloud.example",
    tagline="Hosting for small businesses",
    nav=("Products", "Pricing", "Docs", "Status", "Legal"),
)

TERMS = (
    "These terms govern your use of the hosting services, the control panel and the support we "
    "provide. By creating an account you accept them on behalf of yourself and of any business "
    "you represent. If you do not accept them, do not use the services.",
    "You are responsible for the content you host and for keeping your password secret. You may "
    "not use the services to send unsolicited mail, to attack other networks, to host material "
    "that infringes the rights of others or to mine cryptocurrency. We may suspend an account "
    "that breaks these rules after warning you, or at once when other customers are at risk.",
    "We aim to keep the services available 99.9% of each month. When we fall short, you may "
    "claim a credit of 10% of the month's fee for each full hour below that level, up to the "
    "whole fee. Planned maintenance announced seven days ahead does not count against it.",
    "Fees are charged monthly in advance. You may cancel at any time from the control panel; the "
    "services end at the close of the month you paid for, and we delete your data thirty days "
    "later. We may change the fees with sixty days' notice by email.",
    "Our liability for any claim is limited to the fees you paid in the twelve months before it, "
    "except where the law does not allow such a limit, as for death or personal injury caused "
    "by negligence, or for fraud.",
)

#: (region, the company that contracts, the law, the courts, the consumer clause)
REGIONS = (
    ("Ireland", "Lumen Cloud Ireland Ltd, Dublin", "the laws of Ireland",
     "the courts of Ireland", "the Consumer Rights Act 2022 of Ireland"),
    ("Northern Ireland", "Lumen Cloud UK Ltd, Belfast", "the laws of Northern Ireland",
     "the courts of Northern Ireland", "the Consumer Rights Act 2015 as it applies in Northern "
     "Ireland"),
    ("Wales", "Lumen Cloud UK Ltd, Cardiff", "the laws of England and Wales as they apply in "
     "Wales", "the courts of Wales", "the Consumer Rights Act 2015 and Welsh consumer guidance"),
    ("England and Wales", "Lumen Cloud UK Ltd, London", "the laws of England and Wales",
     "the courts of England and Wales", "the Consumer Rights Act 2015"),
    ("Scotland", "Lumen Cloud UK Ltd, Edinburgh", "Scots law", "the Scottish courts",
     "the Consumer Rights Act 2015 as it applies in Scotland"),
    ("Guernsey", "Lumen Cloud Channel Islands Ltd, St Peter Port", "the laws of Guernsey",
     "the Royal Court of Guernsey", "the Sale of Goods (Guernsey) Law"),
    ("Jersey", "Lumen Cloud Channel Islands Ltd, St Helier", "the laws of Jersey",
     "the Royal Court of Jersey", "the Supply of Goods and Services (Jersey) Law 2009"),
    ("Isle of Man", "Lumen Cloud Isle of Man Ltd, Douglas", "the laws of the Isle of Man",
     "the High Court of the Isle of Man", "the Consumer Protection Act 1991 of the Isle of "
     "Man"),
    ("Gibraltar", "Lumen Cloud Gibraltar Ltd, Gibraltar", "the laws of Gibraltar",
     "the Supreme Court of Gibraltar", "the Consumer Protection (Unfair Trading) Act 2008 of "
     "Gibraltar"),
    ("United Kingdom", "Lumen Cloud UK Ltd, London", "the laws of the United Kingdom where "
     "they agree", "the courts of the United Kingdom", "the Consumer Rights Act 2015"),
)


def regional_terms() -> list[Page]:
    """Terms of service per region, long pages of one template that differ in the company, the
    law, the courts and the consumer clause; titles hold one another's ("Ireland" and
    "Northern Ireland", "Wales" and "England and Wales")."""
    pages = []
    menu = links([(region, f"/legal/terms/{slug(region)}") for region, *_ in REGIONS], "regions")
    shared = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in TERMS)
    for region, company, law, courts, consumer in REGIONS:
        title = f"Terms of Service ({region})"
        main = (f'<article class="terms"><h1>{esc(title)}</h1><p>These terms are an agreement '
                f"between you and {esc(company)}, for customers in {esc(region)}.</p>{shared}"
                f"<p>If you are a consumer, nothing in these terms takes away your rights under "
                f"{esc(consumer)}. These terms are governed by {esc(law)}, and disputes go "
                f"before {esc(courts)}.</p></article>")
        pages.append((f"https://{CLOUD.domain}/legal/terms/{slug(region)}",
                      render(CLOUD, title=title, main=main, sidebar=menu,
                             breadcrumbs=[("Legal", "/legal")])))
    return pages

