"""What the customer's message says, in the language they wrote in (en, de, fr, es, nl).

The customer message is written in the order's ``language`` (recorded by intake); English when none was
recorded. Days are written as people of that language write them ("4. Dezember 2026", "1er décembre 2026",
"4 de diciembre de 2026", "4 december 2026"; English keeps the ISO day the rest of the product shows), and
quantities with that language's thousands separator. The operator's and supplier's messages stay in the
shop's language (English): only the customer's follows theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ..shop.model import Language


@dataclass(frozen=True)
class Wording:
    """The sentences of a customer message in one language; ``{...}`` names what is filled in."""

    greeting: str  # {customer}
    thanks: str  # {order} {what}
    what: str  # {quantity} {product}
    on_time: str  # {finish} {due}
    late: str  # {finish} {due}
    partly: str  # {finish} {due}
    buying: str
    reply: str
    sign_off: str
    subject_on_time: str  # {order} {finish}
    subject_late: str
    subject_partly: str
    months: str  # the twelve month names, space-separated; none: days are written as ISO days
    date_form: str  # {day} {month} {year}
    thousands: str  # "" for none
    first_day: str = "1"  # how the first of a month is written ("1er" in French)

    def day(self, iso_day: str) -> str:
        """``iso_day`` as this language writes a day (English: unchanged)."""
        if not self.months:
            return iso_day
        day = date.fromisoformat(iso_day)
        number = self.first_day if day.day == 1 else str(day.day)
        return self.date_form.format(day=number, month=self.months.split()[day.month - 1], year=day.year)

    def quantity(self, value: int) -> str:
        """``value`` with this language's thousands separator (none in English, as the shop writes it)."""
        return f"{value:,}".replace(",", self.thousands) if self.thousands else str(value)


WORDINGS: dict[Language, Wording] = {
    "en": Wording(
        greeting="Hello {customer},",
        thanks="thank you for your order {order}: {what}.",
        what="{quantity} x {product}",
        on_time="It is planned to be finished on {finish}, in time for {due}.",
        late="We are sorry: we cannot make {due}. We expect to finish it on {finish}.",
        partly="We are sorry: we cannot make {due}. We can make part of it by {finish} and will plan the rest "
        "as soon as machine time frees up.",
        buying="We are bringing in extra material for it and will confirm once it has arrived.",
        reply="If anything about the order has changed, please reply to this message.",
        sign_off="Kind regards,",
        subject_on_time="Your order {order} is planned for {finish}",
        subject_late="Your order {order}: new finishing date {finish}",
        subject_partly="Your order {order} is partly planned for {finish}",
        months="",
        date_form="{day} {month} {year}",
        thousands="",
    ),
    "de": Wording(
        greeting="Guten Tag {customer},",
        thanks="vielen Dank für Ihre Bestellung {order}: {what}.",
        what="{quantity} Stück {product}",
        on_time="Sie wird voraussichtlich am {finish} fertig, rechtzeitig zum {due}.",
        late="Es tut uns leid: Den {due} können wir nicht halten. Wir rechnen mit der Fertigstellung am {finish}.",
        partly="Es tut uns leid: Den {due} können wir nicht halten. Einen Teil können wir bis zum {finish} "
        "fertigen; den Rest planen wir ein, sobald Maschinenzeit frei wird.",
        buying="Wir beschaffen dafür zusätzliches Material und melden uns, sobald es eingetroffen ist.",
        reply="Falls sich an der Bestellung etwas geändert hat, antworten Sie bitte auf diese Nachricht.",
        sign_off="Mit freundlichen Grüßen",
        subject_on_time="Ihre Bestellung {order} ist für den {finish} geplant",
        subject_late="Ihre Bestellung {order}: neuer Fertigstellungstermin {finish}",
        subject_partly="Ihre Bestellung {order} ist teilweise für den {finish} geplant",
        months="Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
        date_form="{day}. {month} {year}",
        thousands=".",
    ),
    "fr": Wording(
        greeting="Bonjour {customer},",
        thanks="merci pour votre commande {order} : {what}.",
        what="{quantity} pièces «\u00a0{product}\u00a0»",
        on_time="Elle sera terminée le {finish}, à temps pour le {due}.",
        late="Nous sommes désolés : nous ne pourrons pas tenir le {due}. Nous prévoyons de la terminer le {finish}.",
        partly="Nous sommes désolés : nous ne pourrons pas tenir le {due}. Nous pouvons en réaliser une partie "
        "d'ici le {finish} et planifierons le reste dès que du temps machine se libère.",
        buying="Nous faisons venir du matériel supplémentaire et vous confirmerons son arrivée.",
        reply="Si quelque chose a changé dans votre commande, merci de répondre à ce message.",
        sign_off="Cordialement,",
        subject_on_time="Votre commande {order} est prévue pour le {finish}",
        subject_late="Votre commande {order} : nouvelle date de fin le {finish}",
        subject_partly="Votre commande {order} est en partie prévue pour le {finish}",
        months="janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
        date_form="{day} {month} {year}",
        first_day="1er",
        thousands="\u202f",
    ),
    "es": Wording(
        greeting="Hola {customer}:",
        thanks="gracias por su pedido {order}: {what}.",
        what="{quantity} unidades de {product}",
        on_time="Está previsto terminarlo el {finish}, a tiempo para el {due}.",
        late="Lo sentimos: no podemos cumplir con el {due}. Prevemos terminarlo el {finish}.",
        partly="Lo sentimos: no podemos cumplir con el {due}. Podemos tener una parte lista el {finish} y "
        "planificaremos el resto en cuanto quede tiempo de máquina libre.",
        buying="Estamos pidiendo material adicional y le confirmaremos cuando haya llegado.",
        reply="Si algo del pedido ha cambiado, por favor responda a este mensaje.",
        sign_off="Saludos cordiales,",
        subject_on_time="Su pedido {order} está previsto para el {finish}",
        subject_late="Su pedido {order}: nueva fecha de entrega {finish}",
        subject_partly="Su pedido {order} está previsto en parte para el {finish}",
        months="enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
        date_form="{day} de {month} de {year}",
        thousands=".",
    ),
    "nl": Wording(
        greeting="Beste {customer},",
        thanks="hartelijk dank voor uw bestelling {order}: {what}.",
        what="{quantity} stuks {product}",
        on_time="Deze is naar verwachting op {finish} klaar, op tijd voor {due}.",
        late="Het spijt ons: {due} halen we niet. We verwachten de bestelling op {finish} klaar te hebben.",
        partly="Het spijt ons: {due} halen we niet. Een deel kunnen we op {finish} klaar hebben; de rest plannen "
        "we zodra er machinetijd vrijkomt.",
        buying="We bestellen extra materiaal en laten het u weten zodra het binnen is.",
        reply="Is er iets aan de bestelling veranderd? Beantwoord dan dit bericht.",
        sign_off="Met vriendelijke groet,",
        subject_on_time="Uw bestelling {order} is gepland voor {finish}",
        subject_late="Uw bestelling {order}: nieuwe opleverdatum {finish}",
        subject_partly="Uw bestelling {order} is deels gepland voor {finish}",
        months="januari februari maart april mei juni juli augustus september oktober november december",
        date_form="{day} {month} {year}",
        thousands=".",
    ),
}


def wording(language: Language | None) -> tuple[Language, Wording]:
    """The language a customer message is written in (English when none was recorded) and its sentences."""
    chosen: Language = language if language in WORDINGS and language is not None else "en"
    return chosen, WORDINGS[chosen]
