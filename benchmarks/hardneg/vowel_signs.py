"""Product pages of a Hindi and a Thai shop whose names differ by one vowel sign: a men's कुर्ता
and a women's कुर्ती, a bear (หมี) and a pig (หมู) doll. The signs are combining marks, which
``\\w`` leaves out: words cut at them made the two names the same pieces (क, र, त; หม), and each
pair one page. Each pair shares its description, price and sizes."""

from __future__ import annotations

from .chrome import Site, esc, render

Page = tuple[str, str]

HI_SHOP = Site(
    name="देसी बाज़ार",
    domain="www.desibazaar.example.in",
    tagline="हाथ से बने कपड़े और गहने, सीधे कारीगरों से",
    nav=("पुरुष", "महिलाएँ", "गहने", "घर", "सेल", "हमारी दुकानें"),
    lang="hi",
    skip="मुख्य सामग्री पर जाएँ",
    cookie=("हम इस साइट को चलाने और आपकी पसंद याद रखने के लिए कुकीज़ का इस्तेमाल करते हैं। "
            "आप सभी कुकीज़ स्वीकार कर सकते हैं या चुन सकते हैं कि हम कौन-सी इस्तेमाल करें।"),
    cookie_buttons=("सभी स्वीकार करें", "अस्वीकार करें"),
    search="खोजें",
    account=("लॉग इन", "खाता बनाएँ", "मदद"),
    home="होम",
    newsletter=("नए संग्रह की खबर", "हर हफ़्ते नए कपड़े और छूट की जानकारी अपने ईमेल पर पाएँ।",
                "सदस्य बनें"),
    related_heading="आपको यह भी पसंद आ सकता है",
    footer_columns=(("हमारे बारे में", ("हमारी कहानी", "कारीगर", "नौकरियाँ")),
                    ("मदद", ("संपर्क करें", "वापसी और रिफ़ंड", "शिपिंग"))),
    legal="सर्वाधिकार सुरक्षित।",
)
#: (slug, name, who, colour, material, price, sizes): each pair one vowel sign apart
GARMENTS = (
    ("kurta-cotton-white", "सफ़ेद सूती कुर्ता", "पुरुषों", "सफ़ेद", "सूती", "₹799", "M, L, XL"),
    ("kurti-cotton-white", "सफ़ेद सूती कुर्ती", "महिलाओं", "सफ़ेद", "सूती", "₹799", "M, L, XL"),
    ("kurta-linen-green", "हरा लिनेन कुर्ता", "पुरुषों", "हरे", "लिनेन", "₹1,199", "S, M, L"),
    ("kurti-linen-green", "हरी लिनेन कुर्ती", "महिलाओं", "हरे", "लिनेन", "₹1,199", "S, M, L"),
    ("topa-wool-grey", "स्लेटी ऊनी टोपा", "बच्चों", "स्लेटी", "ऊनी", "₹349", "एक साइज़"),
    ("topi-wool-grey", "स्लेटी ऊनी टोपी", "बच्चों", "स्लेटी", "ऊनी", "₹349", "एक साइज़"),
    ("thaila-jute", "जूट का थैला", "सभी", "भूरे", "जूट", "₹299", "एक साइज़"),
    ("thaili-jute", "जूट की थैली", "सभी", "भूरे", "जूट", "₹299", "एक साइज़"),
    ("bala-silver", "चाँदी का बाला", "महिलाओं", "चाँदी", "चाँदी", "₹2,450", "एक साइज़"),
    ("bali-silver", "चाँदी की बाली", "महिलाओं", "चाँदी", "चाँदी", "₹2,450", "एक साइज़"),
    ("chura-red", "लाल चूड़ा", "महिलाओं", "लाल", "लाख", "₹650", "2.4, 2.6, 2.8"),
    ("chudi-red", "लाल चूड़ी", "महिलाओं", "लाल", "लाख", "₹650", "2.4, 2.6, 2.8"),
)


def garments_hi() -> list[Page]:
    """A Hindi shop's product pages: कुर्ता and कुर्ती, टोपा and टोपी, थैला and थैली ... one
    description, price and sizes per pair."""
    pages = []
    for slug, name, who, colour, material, price, sizes in GARMENTS:
        text = (f"यह {name} {who} के लिए है। {material} कपड़े से हाथ से बना, हल्का और रोज़ पहनने "
                f"में आरामदायक। {colour} रंग धोने के बाद भी फीका नहीं पड़ता। ठंडे पानी में हाथ से "
                "धोएँ और छाँव में सुखाएँ।")
        main = (f'<div class="product"><h1>{esc(name)}</h1><p class="price">{esc(price)}</p>'
                f"<p>{esc(text)}</p><p>साइज़: {esc(sizes)}</p>"
                "<p>₹999 से ऊपर के ऑर्डर पर मुफ़्त डिलीवरी। 7 दिन में आसान वापसी।</p></div>")
        pages.append((f"https://{HI_SHOP.domain}/products/{slug}.html",
                      render(HI_SHOP, title=name, main=main,
                             breadcrumbs=[("कपड़े", "/c/kapde/")])))
    return pages


TH_SHOP = Site(
    name="ร้านตุ๊กตาน่ารัก",
    domain="www.tukta-shop.example.co.th",
    tagline="ตุ๊กตาผ้านุ่มทำมือ ส่งทั่วประเทศ",
    nav=("หน้าแรก", "ตุ๊กตา", "ของขวัญ", "โปรโมชั่น", "ติดต่อเรา"),
    lang="th",
    skip="ข้ามไปที่เนื้อหา",
    cookie=("เว็บไซต์นี้ใช้คุกกี้เพื่อให้คุณได้รับประสบการณ์ที่ดีที่สุด "
            "คุณสามารถยอมรับคุกกี้ทั้งหมดหรือเลือกเฉพาะบางประเภทได้"),
    cookie_buttons=("ยอมรับทั้งหมด", "ปฏิเสธ"),
    search="ค้นหา",
    account=("เข้าสู่ระบบ", "สมัครสมาชิก", "ช่วยเหลือ"),
    home="หน้าแรก",
    newsletter=("รับข่าวสาร", "รับข่าวสินค้าใหม่และโปรโมชั่นทางอีเมลทุกสัปดาห์", "สมัคร"),
    related_heading="สินค้าที่คุณอาจชอบ",
    footer_columns=(("เกี่ยวกับเรา", ("เรื่องราวของเรา", "ร่วมงานกับเรา")),
                    ("ช่วยเหลือ", ("การจัดส่ง", "การคืนสินค้า", "ติดต่อเรา"))),
    legal="สงวนลิขสิทธิ์",
)
#: (slug, animal): หมี, หมู and หมึก differ by their vowel signs only
DOLLS = (("bear", "หมี"), ("pig", "หมู"), ("squid", "หมึก"), ("horse", "ม้า"), ("crab", "ปู"),
         ("fish", "ปลา"), ("chicken", "ไก่"), ("duck", "เป็ด"), ("cat", "แมว"), ("frog", "กบ"))


def dolls_th() -> list[Page]:
    """A Thai shop's soft toys, one page per animal under one description and price: ตุ๊กตาหมี,
    ตุ๊กตาหมู, ตุ๊กตาหมึก ..."""
    pages = []
    for slug, animal in DOLLS:
        name = f"ตุ๊กตา{animal}"
        text = (f"{name}ผ้าขนนุ่ม เย็บด้วยมือทุกตัว ขนาดสูง 30 เซนติเมตร น้ำหนักเบา "
                "ยัดใยสังเคราะห์คุณภาพดี ไม่ยุบง่าย ตาและจมูกปักด้วยด้าย ไม่มีชิ้นส่วนเล็ก "
                "ปลอดภัยสำหรับเด็กอายุ 3 ปีขึ้นไป เหมาะเป็นของขวัญวันเกิด ของขวัญปีใหม่ "
                "หรือของตกแต่งห้องนอน ซักมือด้วยน้ำเย็น ใช้สบู่อ่อน แล้วผึ่งในที่ร่ม "
                "ห้ามใช้เครื่องอบผ้า สินค้าทุกชิ้นผลิตในประเทศไทย")
        main = (f'<div class="product"><h1>{esc(name)}</h1><p class="price">฿390</p>'
                f"<p>{esc(text)}</p><p>จัดส่งฟรีเมื่อซื้อครบ 500 บาท</p></div>")
        pages.append((f"https://{TH_SHOP.domain}/products/doll-{slug}.html",
                      render(TH_SHOP, title=name, main=main,
                             breadcrumbs=[("ตุ๊กตา", "/c/dolls/")])))
    return pages
