"""The reader on what strangers' customers wrote (held-out batches 22-24: a laser workshop, a sheet-metal shop and a
packaging printer nobody here wrote, rewritten for a shop invented here): short weekdays before a date, a date said
with a lead word over one said alone, plain-text tables, counts of the pack a product is sold in, "4 of each",
an earlier order told beside the new one, a reply's own number over the quote's, years, rough counts, bullet
labels, spelled labelled counts, a reason over a wrapped line, a list that follows, opening hours, an article read
as one, a product named whole before what describes it, and a three-letter head noun.
Every e-mail is sent Monday 1 March 2027."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import Order, ShopState

from .test_intake_reading import facts_of
from .test_intake_reading import take_in as _take_in


def _product(code: str, description: str, *aliases: str) -> dict[str, object]:
    return {"code": code, "description": description, "aliases": list(aliases), "machines": ["PRESS"],
            "minutes_per_unit": 1}  # fmt: skip


SHOP: ShopState = read_shop(
    {
        "name": "pack",
        "timezone": "Europe/London",
        "machines": [{"id": "PRESS", "minutes_per_day": 480}],
        "materials": [],
        "products": [
            _product("LB-RND", "round product labels, roll of 500", "round labels", "étiquettes rondes"),
            _product("TG-SWG", "swing tags, pack of 100", "hang tags", "hangtags"),
            _product("TP-BRD", "branded paper tape, 50 m roll", "paper tape"),
            _product("MB-PRT", "printed mailer box", "mailer box"),
            _product("PM-SLT", "engraved slate place mat", "slate placemat"),
            _product("BO-OAK", "engraved oak bottle opener", "bottle opener", "Flaschenöffner"),
            _product("CB-OAK", "engraved oak serving board", "Schneidebrett aus Eiche"),
            _product("NC-BRC", "birch wood place name card", "place card"),
            _product("BP-120", "bench pad, 120 cm", "120 bench pad"),
            _product("BP-180", "bench pad, 180 cm", "180 bench pad"),
            _product("OP-WPF", "outdoor seat pad, waterproof", "garden seat pad"),
            _product("ST-070", "70 mm stem, 31.8 mm bar clamp", "70mm stem"),
            _product("ES-CUP", "espresso cup", "espresso cups"),
            _product("ES-SAU", "espresso saucer", "saucer"),
            _product("SC-LMB", "woven lambswool scarf", "lamswollen sjaal"),
            _product("SC-MER", "woven merino scarf", "merino sjaal"),
            _product("TH-WOL", "woven wool throw", "wollen plaid"),
        ],
        "orders": [],
    }
)


def take_in(body: str, subject: str = "order", sender: str = "buyer@client.co.uk") -> Order:
    return _take_in(body, subject, SHOP, sender)


@pytest.mark.parametrize(
    ("body", "due"),
    [
        ("Could we order 900 mailer boxes? We need them by Wed 24 Mar.", "2027-03-24"),
        ("Please print 400 mailer boxes, I need them by Mon 5th April.", "2027-04-05"),
        # The weekday must be that date's: Tuesday 5 April is no date to guess.
        ("Please print 400 mailer boxes by Sat 3 April please.", "2027-04-03"),
        (
            "We've two weddings on at the end of the month so we need 350 mailer boxes here by Saturday the 20th.",
            "2027-03-20",
        ),
        (
            "Pour le mariage (fin mai), voici notre commande : 140 mailer boxes, à livrer au plus tard le 30/04/2027.",
            "2027-04-30",
        ),
        (
            "We need 45 mailer boxes in hand by 26/03/2027 so the fit-out crew can install before the\nmove-in on "
            "April 1.",
            "2027-03-26",
        ),
        (
            "We'd need 80 mailer boxes by Wednesday 17th March at the latest so we can set up on the\nThursday.",
            "2027-03-17",
        ),
        (
            "Wij willen 20 mailer boxes, uiterlijk vrijdag 23 april nodig.\n"
            "De namenlijst volgt nog, uiterlijk 9 april.",
            "2027-04-23",
        ),
        ("Can you send 50 mailer boxes? We need them on site Monday 22nd March.", "2027-03-22"),
        ("Order:\n- Producto: mailer box\n- Cantidad: 80\n- Fecha de entrega en obra: 7 de mayo de 2027", "2027-05-07"),
        ("PO 6610\nPart: mailer box\nQty: 75\nDock date: April 23, 2027", "2027-04-23"),
        (
            "Can we get 200 mailer boxes, delivered a fortnight today please? Not for the Wimbledon fortnight.",
            "2027-03-15",
        ),
        ("Could I order 30 mailer boxes please, ready for a week tomorrow?", "2027-03-09"),
        # A telephone number with a trunk 0 is a day-first country's; "CC" above it is no US state.
        (
            "Please book in 35 mailer boxes for 12/03/27.\n\nDave\n--\nDave Rowe, Quantock Riders CC\n07700 900 884",
            "2027-03-12",
        ),
    ],
)
def test_due_dates_as_the_strangers_wrote_them(body: str, due: str) -> None:
    assert take_in(body).due == due


def test_a_date_either_way_round_from_a_sender_nothing_places_is_asked_about() -> None:
    with pytest.raises(IntakeError, match="due date"):
        take_in("Please book in 35 mailer boxes for 12/03/27.\n\nDave\nQuantock Riders CC", sender="d@q.example")


def test_a_us_state_and_zip_say_month_first() -> None:
    order = take_in(
        "Please book 35 mailer boxes for 04/09/27.\nShip to: 61 NW Oregon Ave, Bend, OR 97703", sender="d@q.example"
    )
    assert order.due == "2027-04-09"


def test_a_short_weekday_that_is_not_the_dates_is_not_guessed() -> None:
    with pytest.raises(IntakeError, match="due date"):
        take_in("Please print 400 mailer boxes by Tue 3 April please.")


@pytest.mark.parametrize(
    "body",
    [
        "Tape reorder:\n| Item | Artwork | Qty | Needed by |\n|------|---------|-----|-----------|\n"
        "| Branded paper tape 50m | VM-v3 | 200 rolls | 18/03/2027 |\nDelivery to 9 Kirkgate, Otley.",
        "Please accept the following order:\nItem                  | Qty | Needed by\n"
        "----------------------+-----+-----------\nBranded paper tape    | 200 | 2027-03-18\n",
    ],
)
def test_a_plain_text_table_is_read_under_its_header(body: str) -> None:
    assert facts_of(take_in(body)) == ("TP-BRD", 200, "2027-03-18")


@pytest.mark.parametrize(
    ("body", "quantity"),
    [
        ("Product: round labels (roll of 500)\nQuantity: 120 rolls\nRequired by: 2027-03-08", 120),
        ("Hangtags bestellen.\nAantal: 50 pakjes van 100 stuks\nGraag geleverd vóór vrijdag 21 mei.", 50),
        ("Je vous confirme la commande : 150 rouleaux de 500 étiquettes rondes, pour le 5 mars au plus tard.", 150),
        # Packs of a product not sold in packs stay asked about (see test_intake_reading: "2 pallets of 500").
    ],
)
def test_a_count_of_the_packs_a_product_is_sold_in_counts_the_product(body: str, quantity: int) -> None:
    assert take_in(body).quantity == quantity


@pytest.mark.parametrize(
    ("body", "quantity"),
    [
        (
            "Product: round labels\nQuantity: 120\nRequired by: 2027-03-08\nArtwork: Pale Ale + Stout, 60 rolls each",
            120,
        ),
        ("I want to order 8 mailer boxes, need by 30 April. The text is Happy 60th and Congratulations, 4 of each.", 8),
        (
            "Could ye do us another batch of the mailer boxes, same logo as before (your ref ORD-2701, that was 120 "
            "of them). This time we'd want 150. Need them by Friday 26th March.",
            150,
        ),
        (
            "Please find our new PO.\nItem: mailer box\nQuantity: 2,500\nNeeded by: 12/03/2027\nPrevious PO 7712 "
            "(1,200 mailer boxes) arrived perfectly, thank you.",
            2500,
        ),
        (
            "Last order was 800 mailer boxes and then 1,200 in January, and we're nearly through those too.\nCould you "
            "print 2000 mailer boxes this time? Needed by 2027-04-09.",
            2000,
        ),
        (
            "Suite à notre commande précédente (250 pièces), nous souhaitons commander 300 mailer boxes, livrées "
            "pour le 12 mars 2027.",
            300,
        ),
        # "Same as last time" is a repeat, and its count the new one.
        ("Same as last time, 200 mailer boxes by 2027-03-19 please.", 200),
        ("We need 30 mailer boxes (2x large, all 330ml\nbottles) by 2027-03-19.", 30),
        ("We need 350 mailer boxes by 2027-03-19. We're open from 8 so the courier can drop them any time.", 350),
        ("Queremos hacer un pedido: necesitamos doscientas cincuenta mailer boxes para el 20 de mayo.", 250),
        ("Order:\n- Product: mailer box\n- Cantidad: ochenta (80)\n- Needed by: 2027-05-07", 80),
        ("Product: mailer box\nQuantity: 10 (ten) units\nNeeded by: 2027-05-07", 10),
        ("Product: mailer box\nQuantity: Two hundred and forty\nNeeded by: 2027-05-07", 240),
        (
            "I write you for order 5 boxes of the mailer box with Celtic knot design (50 units each box, so 250 mailer "
            "boxes total). We need it for the 20th of May.",
            250,
        ),
        ("Let's go with 160 mailer boxes rather than the 100 we talked about, with us by 5 March.", 160),
        ("Make it 30 not 20 pls. Same date: 30 mailer boxes by Thursday 11 March.", 30),
    ],
)
def test_the_count_ordered_now(body: str, quantity: int) -> None:
    assert take_in(body).quantity == quantity


def test_a_count_of_what_a_pack_holds_is_asked_about() -> None:
    # Sold by the roll of 500: 140 labels, or 140 rolls? The clerk asks.
    with pytest.raises(IntakeError, match="sold by the pack"):
        take_in("We need 140 round labels by 30/04/2027.")


def test_a_reply_says_how_many_over_the_quote_it_answers() -> None:
    body = (
        "Yes please go ahead. We'll go with 40 in the end, the committee added sections. Can we have them by the "
        "21st May?\n\n-----Original Message-----\nFrom: Shop <orders@shop.example>\nSent: 21 April 2027 15:02\n"
        "Subject: RE: quote\n\nFor 20 mailer boxes it would be EUR 38.00 each."
    )
    assert take_in(body, "RE: Mailer box quote").quantity == 40


def test_a_reply_with_several_numbers_of_its_own_is_asked_about_never_read_from_the_quote() -> None:
    body = (
        "Yes please go ahead, we have 3 shops now so maybe 45. By the 21st May?\n\n-----Original Message-----\n"
        "From: Shop <orders@shop.example>\nSent: 21 April 2027 15:02\nSubject: RE: quote\n\n"
        "For 20 mailer boxes it would be EUR 38.00 each."
    )
    with pytest.raises(IntakeError, match="quantity: the e-mail gives several"):
        take_in(body, "RE: Mailer box quote")


@pytest.mark.parametrize(
    "body",
    [
        "We'd like the mailer boxes again, same as last year but with 2027 on them. We'd need them by 27 May.",
        "wir benötigen ca. 30\u201335 mailer boxes bis 12.03.2027",
        "We need about 80 mailer boxes by 12 March.",
        "Do you do reed diffusers? We'd want around 300 of them, ideally delivered by April 1.",
        "We need 30 or 40 mailer boxes by 12 March.",
        "Wij zouden graag 60 mailer boxes bestellen. Geen haast, ergens eind\nmei.",
        "We need 60 mailer boxes sometime around the end of May.",
        "Could we have 12 mailer boxes towards the end of April?",
        # One each for thirty-four rooms: the count is the rooms', which the reader does not multiply.
        "We'd like the same mailer boxes for the west wing: that's thirty-four rooms, one mailer box each, by 1st "
        "March at the very latest.",
        # "wollen" is a word of no box; the scarves are two products: asked, never read as the plaid.
        "Wij willen graag 100 wollen sjaals bestellen, vóór 21 mei binnen.",
        "We'd like mailer boxes of the three designs by April 2. Maybe somewhere between 50 and 100 of each?",
        "We'd love 150 mailer boxes. Our wedding is June 12 -- we just need them well before then, obviously!",
        "Petite modification : pour la commande des 4 mailer boxes, pouvez-vous plutôt en faire 5 et livrer le "
        "12 mars ?",
    ],
)
def test_a_count_not_yet_settled_is_asked_about(body: str) -> None:
    with pytest.raises(IntakeError):
        take_in(body)


@pytest.mark.parametrize(
    "address",
    [
        "Lieferanschrift: Verlag Nordlicht, Schanzenstraße 41, 20357 Hamburg",
        "Factuur graag naar Uitgeverij De Meeuw, Oudegracht 210, 3511 NS Utrecht.",
        "Livraison : 14 rue des Marronniers, 69002 Lyon",
        "Envío a: Delicatessen Ibáñez, calle de Colón 19, 46004 Valencia.\nTel. 963 51 27 40 / 655 123 987",
        "Große Elbstraße 59\n22767 Hamburg",
    ],
)
def test_an_address_and_its_telephone_numbers_are_no_counts(address: str) -> None:
    order = take_in(f"Bitte 32 mailer boxes bis 30.03.2027.\n{address}")
    assert facts_of(order) == ("MB-PRT", 32, "2027-03-30")


def test_a_postcode_is_no_range() -> None:
    body = "We need 30 mailer boxes by 12 March.\nInvoice to: ul. Legnicka 55, 54-203 Wroclaw"
    assert facts_of(take_in(body)) == ("MB-PRT", 30, "2027-03-12")


@pytest.mark.parametrize(
    ("body", "product"),
    [
        ("Hiermit bestellen wir erneut 160 Flaschenöffner aus Eiche mit Gravur, bis spätestens 26.03.2027.", "BO-OAK"),
        (
            "We want order slate place mats with our restaurant logo engraved, 40 pieces, for date 2027-03-08 latest.",
            "PM-SLT",
        ),
        (
            "Product: mailer box\nQuantity: 240\nRequired by: 2027-03-05\nOur last order (PO LG-2198, 300 round "
            "labels) flew off the shelves.",
            "MB-PRT",
        ),
    ],
)
def test_the_product_ordered(body: str, product: str) -> None:
    assert take_in(body).product == product


@pytest.mark.parametrize(
    ("body", "facts"),
    [
        # The size a name gives, said with its unit, tells the product; said whole, it is meant over one half said.
        (
            "Bench pads for the beer garden benches - the 120cm ones - we need 16 of them by Friday 23 April.",
            ("BP-120", 16, "2027-04-23"),
        ),
        # "60x 70mm stems": 60 of them, and the house number before its street is no count.
        (
            "Please accept PO# 55821:\n60x 70mm stems, black anodized\nRequired delivery date: 15/03/2027\n"
            "Ship to: High Desert Bike Co., 61 NW Oregon Ave, Bend",
            ("ST-070", 60, "2027-03-15"),
        ),
        # What comes from another supplier is not ordered here.
        (
            "Please take this as our order:\n* espresso saucers, 12 cm, white\n* 180 pcs\n* needed 2027-05-10\n"
            "The 180 espresso cups are coming from our other supplier, so saucers only.",
            ("ES-SAU", 180, "2027-05-10"),
        ),
        # How it is packed is no second count; a count of packs spelled counts its units.
        (
            "Pos. | Artikel | Menge | Liefertermin\n-----+---------+-------+-------------\n"
            " 1 | mailer box | 150 Stück | 26.03.2027\nBitte wie gewohnt in Kartons zu je 25 Stück verpacken.",
            ("MB-PRT", 150, "2027-03-26"),
        ),
        (
            "We need 300 units of the mailer box for 16 April latest. If possible, we prefer two boxes of 150\nunits.",
            ("MB-PRT", 300, "2027-04-16"),
        ),
        # Print data the shop receives by a day is not what is needed by it.
        (
            "benötigen wir 250 mailer boxes. Anliefertermin spätestens 9. April 2027.\nDie Druckdaten erhalten Sie bis "
            "Ende dieser Woche von unserer Grafik.",
            ("MB-PRT", 250, "2027-04-09"),
        ),
        (
            "We need 90 mailer boxes. It must be ready for pick-up next Friday, we come with our van.",
            ("MB-PRT", 90, "2027-03-05"),
        ),
        ("Les confirmo el pedido de 40 mailer boxes para el día 12 de abril.", ("MB-PRT", 40, "2027-04-12")),
        # The day something starts is not the day it is needed.
        (
            "We need 250 espresso cups for the 28th April. It is for our new menu, the chef want to start with it on "
            "1st May.",
            ("ES-CUP", 250, "2027-04-28"),
        ),
    ],
)
def test_what_a_careful_clerk_reads(body: str, facts: tuple[str, int, str]) -> None:
    assert facts_of(take_in(body)) == facts


def test_a_size_said_without_its_unit_names_no_product() -> None:
    # "160 -> 180": the adapter goes from one rotor to the other; only "180mm" is said as a size.
    order = take_in("Need 15 bench pads for 180cm benches by 28/05. These are for the front, 160 -> 180.")
    assert facts_of(order) == ("BP-180", 15, "2027-05-28")


def test_a_short_head_noun_named_in_passing_names_nothing() -> None:
    # "mat" tells the place mat apart when it names the product, not beside another product counted.
    order = take_in("We'd like 120 place cards, the same size as the mat you did, by 2027-03-19.")
    assert facts_of(order) == ("NC-BRC", 120, "2027-03-19")
