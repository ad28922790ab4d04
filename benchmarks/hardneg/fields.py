"""Pages that one field line tells apart: the same text under one title for another region,
model or branch ("지역: 서울" and "지역: 인천" beside one advisory, "Modelo: Onix" and "Modelo:
Tracker" above one manual chapter). The value is in no title, heading or figure."""

from __future__ import annotations

from .chrome import Site, esc, render

Page = tuple[str, str]

KO_SITE = Site(
    name="날씨누리",
    domain="www.nalssi-nuri.example.kr",
    tagline="국민과 함께하는 기상 정보",
    nav=("예보", "특보", "관측", "기후", "지진·화산", "고객지원"),
    lang="ko",
    skip="본문 바로가기",
    cookie="이 사이트는 서비스 개선을 위해 쿠키를 사용합니다. 계속 이용하시면 쿠키 사용에 동의하신 "
           "것으로 간주됩니다.",
    cookie_buttons=("동의", "거부", "설정"),
    search="검색",
    account=("로그인", "회원가입", "도움말"),
    home="홈",
    newsletter=("기상 알림 서비스", "특보와 예보 변경 소식을 문자와 메일로 받아보세요.",
                "신청하기"),
    related_heading="다른 지역 특보",
    footer_columns=(
        ("기상청", ("기관 소개", "보도자료", "정보공개")),
        ("고객지원", ("자주 묻는 질문", "국민신문고", "날씨 상담")),
        ("정책", ("개인정보처리방침", "저작권 정책", "이용약관")),
    ),
    legal="무단 전재 및 재배포 금지.",
)
KO_REGIONS = ("서울", "인천", "경기 북부", "경기 남부", "강원 영서", "충북", "충남", "대전",
              "세종", "전북", "광주", "대구")
KO_ADVISORY = (
    "대기 정체로 인해 미세먼지 농도가 높게 나타나고 있습니다. 노약자와 어린이, 호흡기 질환자는 "
    "실외 활동을 자제하시고, 외출 시 보건용 마스크를 착용하시기 바랍니다.",
    "학교와 유치원은 실외 수업을 실내 수업으로 대체하도록 권고합니다. "
    "차량 운행을 줄이고 대중교통을 이용해 주시기 바랍니다.",
    "창문을 닫고 실내 공기 질 관리에 유의하시기 바랍니다. 해제 시에는 다시 알려 드리겠습니다.",
)

#: what to do, beside every advisory (its page's content, not its text)
KO_TIPS = (
    "외출은 가급적 자제하기", "외출 시 보건용 마스크 착용하기", "실외 활동 시간 줄이기",
    "외출 후 깨끗이 씻기", "물과 비타민이 풍부한 과일과 야채 섭취하기",
    "환기, 물걸레질 등 실내 공기 질 관리하기", "대기오염 유발 행위 자제하기",
    "어르신과 어린이는 특히 건강에 유의하기",
)


def advisories_ko() -> list[Page]:
    """One fine-dust advisory issued for twelve regions: the same title and text on every page,
    the region in one field line."""
    pages = []
    for number, region in enumerate(KO_REGIONS, start=1):
        main = ('<article class="warning"><h1>미세먼지 주의보 발령</h1>'
                f'<p class="region">지역: {esc(region)}</p>'
                + "".join(f"<p>{esc(p)}</p>" for p in KO_ADVISORY) + "</article>"
                '<section class="tips"><h2>행동 요령</h2><ul>'
                + "".join(f"<li>{esc(tip)}</li>" for tip in KO_TIPS) + "</ul></section>")
        pages.append((f"https://{KO_SITE.domain}/warn/view?no={number}",
                      render(KO_SITE, title="미세먼지 주의보 발령", main=main,
                             breadcrumbs=[("특보", "/warn/")])))
    return pages


PT_SITE = Site(
    name="Manuais Auto",
    domain="www.manuais-auto.example.com.br",
    tagline="O manual do seu carro, sempre à mão",
    nav=("Início", "Manuais", "Revisões", "Recalls", "Concessionárias", "Contato"),
    lang="pt-BR",
    skip="Pular para o conteúdo",
    cookie="Usamos cookies para melhorar sua experiência. Ao continuar navegando, você concorda "
           "com a nossa política de cookies.",
    cookie_buttons=("Aceitar", "Recusar", "Preferências"),
    search="Buscar",
    account=("Entrar", "Cadastrar", "Ajuda"),
    home="Início",
    newsletter=("Receba novidades", "Avisos de recall e dicas de manutenção no seu e-mail.",
                "Assinar"),
    related_heading="Outros manuais",
    footer_columns=(
        ("Institucional", ("Quem somos", "Imprensa", "Trabalhe conosco")),
        ("Ajuda", ("Perguntas frequentes", "Fale conosco", "Mapa do site")),
        ("Legal", ("Termos de uso", "Privacidade", "Cookies")),
    ),
    legal="Todos os direitos reservados.",
)
PT_MODELS = ("Onix", "Onix Plus", "Tracker", "Cruze Sport", "Spin", "Montana", "Equinox",
             "Trailblazer", "Joy", "Prisma")
PT_CHAPTER = (
    "O veículo deve ser revisado a cada dez mil quilômetros ou doze meses, o que ocorrer "
    "primeiro. As revisões periódicas garantem o funcionamento correto do motor, dos freios e "
    "da suspensão, além de manter a validade da garantia de fábrica.",
    "Verifique o nível do óleo do motor com o veículo em local plano e com o motor frio. Retire "
    "a vareta, limpe-a com um pano, introduza-a novamente até o fim e retire-a outra vez: o "
    "nível deve estar entre as marcas de mínimo e máximo. Use somente o óleo recomendado pela "
    "fábrica e troque o filtro a cada troca de óleo.",
    "A pressão dos pneus deve ser verificada semanalmente, com os pneus frios, inclusive a do "
    "estepe. Pneus com pressão abaixo da recomendada se desgastam mais depressa, aumentam o "
    "consumo de combustível e prejudicam a estabilidade do veículo em curvas e frenagens.",
    "O fluido de freio absorve umidade com o tempo e perde eficiência. Substitua-o conforme o "
    "plano de manutenção e sempre que o nível baixar sem motivo aparente, procure uma "
    "concessionária: pode haver vazamento no sistema.",
    "As palhetas do limpador de para-brisa devem ser trocadas quando deixarem riscos no vidro ou "
    "fizerem ruído. Nunca acione o limpador com o vidro seco, para não danificar as borrachas.",
    "Antes de viagens longas, confira também o nível do líquido de arrefecimento, o "
    "funcionamento das luzes e o estado da bateria. Em caso de dúvida, consulte a rede de "
    "concessionárias autorizadas, que dispõe de peças originais e técnicos treinados.",
)


def manuals_pt() -> list[Page]:
    """One owner's-manual chapter for ten models: the same long text under one title, the
    model in one field line."""
    pages = []
    for number, model in enumerate(PT_MODELS, start=1):
        main = ('<article class="manual"><h1>Manual do proprietário: revisões e cuidados</h1>'
                f'<p class="model">Modelo: {esc(model)}</p><p class="brand">Marca: Chevrolet</p>'
                + "".join(f"<p>{esc(p)}</p>" for p in PT_CHAPTER) + "</article>")
        pages.append((f"https://{PT_SITE.domain}/manual/revisoes?id={number}",
                      render(PT_SITE, title="Manual do proprietário: revisões e cuidados",
                             main=main, breadcrumbs=[("Manuais", "/manual/")])))
    return pages


EN_SITE = Site(
    name="Northbank",
    domain="www.northbank.example.co.uk",
    tagline="Banking, closer to home",
    nav=("Current accounts", "Savings", "Mortgages", "Loans", "Branches", "Help"),
    related_heading="Other branches",
)
EN_BRANCHES = ("Leeds City Centre", "Leeds Headingley", "Bradford Broadway", "Harrogate",
               "York Coney Street", "Wakefield", "Huddersfield", "Halifax Commercial Street",
               "Ilkley", "Otley")
EN_SERVICES = ("Cash and cheque deposits", "Counter withdrawals", "Mortgage appointments",
               "Foreign currency to order", "Accessible entrance and hearing loop",
               "Business banking appointments", "Coin counting for customers",
               "Safe deposit boxes by arrangement", "Free wifi and self-service tablets")


def branches_en() -> list[Page]:
    """One bank's branch pages: the same opening hours, services and notice under one title,
    the branch in one field line."""
    hours = [("Monday to Friday", "9:30 - 16:30"), ("Saturday", "9:30 - 12:30"),
             ("Sunday", "Closed")]
    pages = []
    for number, branch in enumerate(EN_BRANCHES, start=1):
        main = ('<section class="branch"><h1>Branch details</h1>'
                f'<p class="field">Branch: {esc(branch)}</p>'
                "<p>Most everyday banking can be done in our app, and you can book an "
                "appointment online to see a mortgage adviser at any branch in the region. "
                "Please bring photo identification for any counter transaction.</p>"
                '<h2>Opening hours</h2><ul class="hours">'
                + "".join(f"<li>{esc(day)}: {esc(time)}</li>" for day, time in hours)
                + '</ul><h2>Services</h2><ul class="services">'
                + "".join(f"<li>{esc(s)}</li>" for s in EN_SERVICES)
                + "</ul></section>")
        pages.append((f"https://{EN_SITE.domain}/branches/view?b={number}",
                      render(EN_SITE, title="Branch details", main=main,
                             breadcrumbs=[("Branches", "/branches/")])))
    return pages


KO_JOB_REGIONS = ("서울 강남구", "서울 송파구", "인천 서구", "경기 부천시", "경기 김포시",
                  "경기 이천시", "경기 용인시", "충남 천안시", "대전 유성구", "부산 강서구")
KO_JOB_FIELDS = (("모집직종", "물류센터 상하차"), ("근무형태", "아르바이트"),
                 ("근무요일", "토, 일"), ("근무시간", "09:00 ~ 18:00 (휴게 1시간)"),
                 ("급여", "일급 120,000원"), ("성별", "무관"), ("연령", "연령무관"))
KO_JOB_TEXT = (
    "주말에만 일할 수 있는 물류센터 상하차 알바를 모집합니다. 초보자도 가능하며 첫 출근 시 "
    "안전교육을 진행합니다. 식사가 제공되고 근무 후 당일 급여 지급이 가능합니다.",
    "지원 방법: 온라인 지원 또는 전화 문의. 담당자가 확인 후 개별 연락드립니다.",
)


def job_regions_ko() -> list[Page]:
    """One staffing agency's weekend warehouse job in ten places: the same title, text and
    fields but one, the place, in a description list (``<dt>근무지역</dt><dd>…</dd>``)."""
    pages = []
    for number, region in enumerate(KO_JOB_REGIONS, start=1):
        fields = [KO_JOB_FIELDS[0], ("근무지역", region), *KO_JOB_FIELDS[1:]]
        main = ('<article class="job"><h1>물류센터 상하차 주말 알바 모집</h1><dl class="summary">'
                + "".join(f"<dt>{esc(label)}</dt><dd>{esc(value)}</dd>" for label, value in fields)
                + "</dl>" + "".join(f"<p>{esc(p)}</p>" for p in KO_JOB_TEXT) + "</article>")
        pages.append((f"https://{KO_SITE.domain}/jobs/view?id=5{number:03d}",
                      render(KO_SITE, title="물류센터 상하차 주말 알바 모집", main=main,
                             breadcrumbs=[("채용", "/jobs/")])))
    return pages


EN_COLOURS = ("White", "Black", "Navy", "Heather Grey", "Forest Green", "Burgundy",
              "Sand", "Sky Blue", "Charcoal", "Olive")


def tee_colours() -> list[Page]:
    """One T-shirt in ten colours, a page each under one title: the colour is in the URL's path
    and a specification's row, nowhere else."""
    pages = []
    for colour in EN_COLOURS:
        slug = colour.lower().replace(" ", "-")
        specs = [("Colour", colour), ("Material", "Organic cotton"), ("Fit", "Regular"),
                 ("Care", "Machine wash cold")]
        main = ('<div class="product"><h1>Organic Cotton Tee</h1><p class="price">£18.00</p>'
                "<p>A soft, breathable everyday tee in organic cotton, cut for a regular fit "
                "and finished with a ribbed crew neck.</p><table class=\"specs\">"
                + "".join(f"<tr><th>{esc(label)}</th><td>{esc(value)}</td></tr>"
                          for label, value in specs)
                + "</table></div>")
        pages.append((f"https://{EN_SITE.domain}/shop/organic-tee-{slug}",
                      render(EN_SITE, title="Organic Cotton Tee", main=main,
                             breadcrumbs=[("Shop", "/shop/")])))
    return pages


EN_SHADES = ("Charcoal", "Oatmeal", "Forest Green", "Navy", "Rust", "Mustard", "Dusty Pink",
             "Slate Blue", "Cream", "Black")


def variant_controls() -> list[Page]:
    """One beanie in ten shades, a page each under one title and one text: the shade is only the
    option its form shows selected (five pages) or the radio button checked (five), and the
    URL's query."""
    pages = []
    for number, shade in enumerate(EN_SHADES):
        if number < 5:
            control = ('<label for="shade">Shade</label><select id="shade" '
                       'name="attribute_pa_shade">'
                       + "".join(f'<option value="{esc(s.lower())}"'
                                 f'{" selected" if s == shade else ""}>{esc(s)}</option>'
                                 for s in EN_SHADES) + "</select>")
        else:
            control = "<fieldset><legend>Shade</legend>" + "".join(
                f'<label><input type="radio" name="shade" value="{esc(s)}"'
                f'{" checked" if s == shade else ""}> {esc(s)}</label>' for s in EN_SHADES
            ) + "</fieldset>"
        main = ('<div class="product"><h1>Merino Rib Beanie</h1><p class="price">£24.00</p>'
                "<p>A close-fitting rib-knit beanie in soft extra-fine merino, warm without "
                "bulk and folded at the brim for a double layer over the ears.</p>"
                f'<form class="variations">{control}<button>Add to basket</button></form>'
                "</div>")
        pages.append((f"https://{EN_SITE.domain}/shop/merino-beanie?variant={number + 1}",
                      render(EN_SITE, title="Merino Rib Beanie", main=main,
                             breadcrumbs=[("Shop", "/shop/")])))
    return pages
