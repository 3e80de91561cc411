"""The generated shop and customer e-mails of `make demo-month` (scripts/demo_month.py), from one seeded RNG.

    shop(rng)                 -> a 6-machine parts shop: 6 products with aliases in four more languages, 5 materials,
                                 a holiday, a service day, 18 orders placed on the first days within capacity
    Mailbox(rng, shop).day(d) -> that day's e-mails: 5-10 of them in five languages (about 60% English), each
                                 phrased from a few templates (greeting, how the product, quantity and date are
                                 said, a sign-off), some without a date or a quantity (they wait as needs facts),
                                 some sent again in a new envelope or delivered twice

Every e-mail carries what it asks for (``Mail.intended``), so the month can tell a plan with the right facts from
one with a wrong fact, and complete a held one with what the customer meant.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

TIMEZONE = "Europe/Amsterdam"
MINUTES_PER_DAY = 480
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri"]
MACHINES = ("MILL-1", "MILL-2", "MILL-3", "LATHE-1", "LATHE-2", "SWISS-1")

# code, description, machines, minutes per unit, material, aliases (de, fr, es, nl), unit range
PRODUCTS: tuple[tuple[str, str, tuple[str, ...], int, str, dict[str, str], tuple[int, int]], ...] = (
    (
        "BRK-AL-40",
        "aluminium bracket",
        ("MILL-1", "MILL-2"),
        3,
        "AL-6061-BAR",
        {"de": "Aluminiumhalter", "fr": "support en aluminium", "es": "soporte de aluminio", "nl": "aluminium beugel"},
        (40, 160),
    ),
    (
        "SHF-SS-12",
        "stainless steel shaft",
        ("LATHE-1", "LATHE-2"),
        4,
        "SS-304-ROD",
        {"de": "Edelstahlwelle", "fr": "arbre en inox", "es": "eje de acero inoxidable", "nl": "rvs as"},
        (30, 120),
    ),
    (
        "DP-SS-6X30",
        "stainless dowel pin",
        ("LATHE-1", "LATHE-2", "SWISS-1"),
        1,
        "SS-304-ROD",
        {"de": "Passstift", "fr": "goupille inox", "es": "pasador de acero", "nl": "paspen"},
        (200, 600),
    ),
    (
        "BSH-BR-20",
        "brass bushing",
        ("SWISS-1", "LATHE-2"),
        2,
        "BRASS-ROD",
        {"de": "Messingbuchse", "fr": "bague en laiton", "es": "casquillo de laton", "nl": "messing bus"},
        (60, 240),
    ),
    (
        "FLG-ST-100",
        "steel flange plate",
        ("MILL-2", "MILL-3"),
        6,
        "ST-PLATE",
        {"de": "Stahlflansch", "fr": "bride en acier", "es": "brida de acero", "nl": "stalen flens"},
        (20, 80),
    ),
    (
        "SPR-AL-30",
        "aluminium spacer ring",
        ("SWISS-1", "LATHE-1"),
        1,
        "AL-TUBE",
        {"de": "Distanzring", "fr": "entretoise en aluminium", "es": "anillo espaciador", "nl": "afstandsring"},
        (150, 500),
    ),
)
MATERIALS = {  # on hand, supplier, lead time (days)
    "AL-6061-BAR": (2500, "sales@alu-supply.example", 3),
    "SS-304-ROD": (5000, "orders@steelstock.example", 4),
    "BRASS-ROD": (400, "orders@steelstock.example", 3),
    "ST-PLATE": (150, "plate@mill-direct.example", 5),
    "AL-TUBE": (900, "sales@alu-supply.example", 2),
}
CUSTOMERS = {  # language -> (name, contact, domain)
    "en": (
        ("Harbor Robotics", "Dana Reyes", "harbor-robotics.example"),
        ("Northfield Pumps", "Sam Patel", "northfield-pumps.example"),
        ("Ashby Instruments", "Kate Morgan", "ashby-instruments.example"),
        ("Greenline Bikes", "Tom Walsh", "greenline-bikes.example"),
        ("Clearwater Marine", "Priya Shah", "clearwater-marine.example"),
        ("Oakridge Automation", "Ben Carter", "oakridge-automation.example"),
    ),
    "de": (
        ("Brenner Maschinenbau", "Jana Keller", "brenner-maschinenbau.example"),
        ("Vogt Antriebe", "Lukas Vogt", "vogt-antriebe.example"),
    ),
    "fr": (
        ("Ateliers Moreau", "Claire Moreau", "ateliers-moreau.example"),
        ("Lumiere Optique", "Julien Petit", "lumiere-optique.example"),
    ),
    "es": (("Talleres Ibarra", "Lucia Ibarra", "talleres-ibarra.example"),),
    "nl": (
        ("Van Dijk Techniek", "Sanne de Vries", "vandijk-techniek.example"),
        ("Bakker Hydrauliek", "Joris Bakker", "bakker-hydrauliek.example"),
    ),
}
MONTHS = {
    "en": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    "de": [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
    "fr": [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
    "es": [
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ],
    "nl": [
        "januari",
        "februari",
        "maart",
        "april",
        "mei",
        "juni",
        "juli",
        "augustus",
        "september",
        "oktober",
        "november",
        "december",
    ],
}
GREETING = {
    "en": ("Hello,", "Hi there,", "Good morning,", "Dear team,"),
    "de": ("Hallo,", "Guten Tag,", "Sehr geehrte Damen und Herren,"),
    "fr": ("Bonjour,", "Madame, Monsieur,"),
    "es": ("Hola,", "Buenos días,"),
    "nl": ("Hallo,", "Goedemorgen,", "Beste,"),
}
# {qty} {units} {product} {due}: how each language asks; a few ways each.
ASK = {
    "en": (
        "we need {qty} {product} by {due}.",
        "could you make {qty} pieces of {product} for us? We need them by {due}.",
        "please quote and schedule {qty} x {product}, delivery by {due}.",
        "our assembly line needs {qty} {product} no later than {due}.",
    ),
    "de": ("wir brauchen {qty} Stück {product} bis {due}.", "bitte fertigen Sie uns {qty} Stück {product} bis {due}."),
    "fr": (
        "nous avons besoin de {qty} pièces {product} pour le {due}.",
        "pourriez-vous nous fabriquer {qty} pièces {product} avant le {due} ?",
    ),
    "es": (
        "necesitamos {qty} unidades de {product} para el {due}.",
        "por favor fabriquen {qty} unidades {product} antes del {due}.",
    ),
    "nl": (
        "wij hebben {qty} stuks {product} nodig voor {due}.",
        "kunnen jullie {qty} stuks {product} maken? Graag uiterlijk {due}.",
    ),
}
# The same asks without a date: these cannot be planned until a person gives the due day.
ASK_UNDATED = {
    "en": ("we need {qty} {product} as soon as you can.", "please make {qty} pieces of {product} for our next batch."),
    "de": ("wir brauchen {qty} Stück {product} so schnell wie möglich.",),
    "fr": ("nous avons besoin de {qty} pièces {product} dès que possible.",),
    "es": ("necesitamos {qty} unidades de {product} lo antes posible.",),
    "nl": ("wij hebben {qty} stuks {product} zo snel mogelijk nodig.",),
}
EXTRA = {
    "en": ("Same drawing revision as last time.", "Material certificates please.", "", ""),
    "de": ("Zeichnung wie beim letzten Auftrag.", ""),
    "fr": ("Même plan que la dernière fois.", ""),
    "es": ("El mismo plano que la última vez.", ""),
    "nl": ("Zelfde tekening als vorige keer.", ""),
}
CLOSING = {
    "en": ("Thanks,", "Best regards,", "Many thanks,", "Cheers,"),
    "de": ("Viele Grüße", "Mit freundlichen Grüßen"),
    "fr": ("Cordialement,", "Bien à vous,"),
    "es": ("Saludos,", "Un saludo,"),
    "nl": ("Met vriendelijke groet,", "Groeten,"),
}


def _due_text(rng: random.Random, lang: str, due: date) -> str:
    month = MONTHS[lang][due.month - 1]
    forms = {
        "en": (f"{month} {due.day}", due.isoformat(), f"{due.day} {month} {due.year}"),
        "de": (f"{due.day:02d}.{due.month:02d}.{due.year}", f"{due.day}. {month} {due.year}"),
        "fr": (f"{due.day} {month} {due.year}", f"{due.day:02d}/{due.month:02d}/{due.year}"),
        "es": (f"{due.day} de {month} de {due.year}", f"{due.day:02d}/{due.month:02d}/{due.year}"),
        "nl": (f"{due.day} {month} {due.year}", f"{due.day:02d}-{due.month:02d}-{due.year}"),
    }
    return rng.choice(forms[lang])


def working_days(first: date, count: int, closed: frozenset[date]) -> list[date]:
    """``count`` working days (Monday to Friday, not ``closed``) from ``first`` on."""
    days: list[date] = []
    day = first
    while len(days) < count:
        if day.weekday() < 5 and day not in closed:
            days.append(day)
        day += timedelta(days=1)
    return days


@dataclass(frozen=True)
class Mail:
    """One e-mail: its text, who sent it, what it asks for, and how it was written."""

    name: str
    text: str
    sender: str
    language: str
    intended: dict[str, str]  # product, quantity, due: what the customer meant
    plain: bool  # it states product, quantity and due date plainly
    resend_of: str = ""  # the name of the e-mail it repeats in a new envelope
    redelivery_of: str = ""  # the name of the e-mail it is (the same envelope delivered again)


@dataclass
class Mailbox:
    """The customers' e-mails, day by day, from ``rng``."""

    rng: random.Random
    first_day: date
    sent: list[Mail] = field(default_factory=list)
    _count: int = 0

    def _mail(self, day: date, minute: int, lang: str, *, plain: bool) -> Mail:
        rng = self.rng
        company, contact, domain = rng.choice(CUSTOMERS[lang])
        code, description, _, _, _, aliases, (low, high) = rng.choice(PRODUCTS)
        quantity = rng.randrange(low, high + 1, 10)
        due = day + timedelta(days=rng.randint(9, 24))
        named = rng.choice((code, description) if lang == "en" else (code, aliases[lang], aliases[lang]))
        self._count += 1
        name = f"m{self._count:03d}-{lang}"
        ask = rng.choice(ASK[lang] if plain else ASK_UNDATED[lang])
        body = ask.format(qty=quantity, product=named, due=_due_text(rng, lang, due))
        extra = rng.choice(EXTRA[lang])
        subject = rng.choice(
            (f"Order: {description}", f"PO {rng.randint(4000, 9999)}", "Request", f"{code}", f"Order {company}")
        )
        sent = f"{day.strftime('%a, %d %b %Y')} {8 + minute // 60:02d}:{minute % 60:02d}:00 +0100"
        sender = f"{contact.split()[0].lower()}@{domain}"
        text = (
            f"From: {contact} <{sender}>\nTo: orders@kestrel-parts.example\nDate: {sent}\n"
            f"Message-ID: <{name}.{rng.getrandbits(32):08x}@{domain}>\nSubject: {subject}\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n"
            f"{rng.choice(GREETING[lang])}\n\n{body[0].upper()}{body[1:]}\n{extra}\n\n"
            f"{rng.choice(CLOSING[lang])}\n{contact}\n{company}\n"
        )
        intended = {"product": code, "quantity": str(quantity), "due": due.isoformat()}
        return Mail(name, text, sender, lang, intended, plain)

    def day(self, day: date, count: int | None = None) -> list[Mail]:
        """The e-mails that arrive on ``day``: ``count``, else 5 to 10, in the order they arrive."""
        rng, mails = self.rng, []
        for _ in range(rng.randint(5, 10) if count is None else count):
            kind = rng.random()
            earlier = [m for m in self.sent[-12:] if not m.resend_of and not m.redelivery_of and m.plain]
            if kind < 0.05 and earlier:
                # The customer did not hear back and sends the same words again, in a new envelope.
                first = rng.choice(earlier)
                self._count += 1
                name = f"m{self._count:03d}-{first.language}"
                text = first.text.replace("Message-ID: <", f"Message-ID: <again-{name}.", 1)
                mails.append(Mail(name, text, first.sender, first.language, first.intended, True, resend_of=first.name))
            elif kind < 0.08 and earlier:
                # The mail system delivers one message twice: the same envelope.
                first = rng.choice(earlier)
                self._count += 1
                mails.append(
                    Mail(
                        f"m{self._count:03d}-{first.language}",
                        first.text,
                        first.sender,
                        first.language,
                        first.intended,
                        True,
                        redelivery_of=first.name,
                    )
                )
            else:
                lang = rng.choices(("en", "de", "fr", "es", "nl"), weights=(60, 10, 10, 10, 10))[0]
                mails.append(self._mail(day, len(mails) * 45, lang, plain=kind >= 0.16))
            self.sent.append(mails[-1])
        return mails


def shop(rng: random.Random, first_day: date, holiday: date, service_day: date) -> dict[str, Any]:
    """The shop file: machines (a holiday for all, a service day for one), materials, products with aliases and
    18 orders placed greedily on the first working days within every machine-day's capacity."""
    machines = [
        {
            "id": m,
            "minutes_per_day": MINUTES_PER_DAY,
            "weekdays": WEEKDAYS,
            "closed_days": [holiday.isoformat()] + ([service_day.isoformat()] if m == "MILL-2" else []),
        }
        for m in MACHINES
    ]
    materials = [
        {"id": mid, "on_hand": on_hand, "supplier_email": supplier, "lead_time_days": lead}
        for mid, (on_hand, supplier, lead) in MATERIALS.items()
    ]
    products = [
        {
            "code": code,
            "description": description,
            "machines": list(machines_of),
            "minutes_per_unit": minutes,
            "aliases": sorted(aliases.values()),
            "materials": [{"id": material, "per_unit": 1}],
        }
        for code, description, machines_of, minutes, material, aliases, _ in PRODUCTS
    ]
    closed = frozenset({holiday})
    days = working_days(first_day, 12, closed)
    free = {(m, d): MINUTES_PER_DAY for m in MACHINES for d in days}
    free.update({("MILL-2", service_day): 0})
    orders = []
    for index in range(18):
        code, _, machines_of, minutes, _, _, (low, high) = rng.choice(PRODUCTS)
        company, _, domain = rng.choice(CUSTOMERS["en"])
        quantity = rng.randrange(low, high + 1, 10)
        need, schedule = quantity * minutes, []
        for day in days[index // 4 :]:  # a few orders start each day: the first weeks are busy, not full
            for machine in machines_of:
                take = min(need, free[(machine, day)])
                if take >= min(60, need):
                    schedule.append({"machine": machine, "day": day.isoformat(), "minutes": take})
                    free[(machine, day)] -= take
                    need -= take
                if not need:
                    break
            if not need:
                break
        last = max(date.fromisoformat(s["day"]) for s in schedule)
        orders.append(
            {
                "id": f"ORD-{5001 + index}",
                "customer": company,
                "customer_email": f"purchasing@{domain}",
                "product": code,
                "quantity": quantity,
                "due": (last + timedelta(days=rng.randint(2, 8))).isoformat(),
                "priority": rng.choice((20, 30, 40, 50, 60, 70)),
                "schedule": schedule,
            }
        )
    return {
        "name": "Kestrel Precision Parts",
        "timezone": TIMEZONE,
        # The owner's rule: what is asked after noon is planned from tomorrow (a decision comes next morning).
        "planning_cutoff": "12:00",
        "operator_email": "floor@kestrel-parts.example",
        "machines": machines,
        "materials": materials,
        "products": products,
        "orders": orders,
    }
