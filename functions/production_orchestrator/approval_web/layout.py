"""What every approval page shares: the stylesheet (allowed by its hash), the security headers, the frame."""

from __future__ import annotations

import base64
import hashlib
from html import escape

_CARD_STYLE = (
    ".card{border:2px solid #1f4e99;padding:.5rem .9rem .3rem}"
    ".card .what{margin:.4rem 0;font-size:1.1rem}"
    ".when{font-weight:700;margin:.3rem 0;padding:.25rem .5rem;border-radius:.3rem}"
    ".when.ok{background:#eefaf1;color:#145c2b}.when.late{background:#fff1e0;color:#5c3a00}"
    ".sum{display:grid;grid-template-columns:auto 1fr;gap:.1rem .7rem;margin:.3rem 0}"
    ".sum dt{margin:0}.sum dd{overflow-wrap:anywhere}.sum .fp{font-size:1.05rem}"
    ".card form{margin:.4rem 0}.card label{margin:.2rem 0}.card textarea{height:3.2rem}"
    ".small{font-size:.85rem;color:#444;margin:.2rem 0 .4rem}"
)

# The before/after timeline (timeline.py) and its legend; .sr hides the words from sight, not from readers.
_TIMELINE_STYLE = (
    ".tl{overflow-x:auto;margin:.2rem 0 .6rem}.tl svg{display:block}"
    "h3{font-size:.95rem;margin:.6rem 0 .2rem}"
    ".legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.2rem .9rem;font-size:.85rem}"
    ".legend li{margin:0}.sw{display:inline-block;width:.9rem;height:.9rem;border-radius:.2rem;"
    "vertical-align:-.1rem;margin-right:.3rem;border:2px solid #8a8a8a}"
    ".lg-new{background:#1f4e99;border-color:#0d2c5e}.lg-moved{background:#dce8fb;border:2px dashed #1f4e99}"
    ".lg-left{background:#fff;border:2px dashed #8a8a8a}.lg-risk{background:#fff1e0;border-color:#b26b00}"
    ".lg-closed{background:#d5d5d1;border-color:#cfcfcb}"
    ".sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);"
    "white-space:nowrap;border:0}"
)

_STYLE = (
    "html{-webkit-text-size-adjust:100%}"
    "body{font:1.0625rem/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;padding:1rem;"
    "color:#1a1a1a;background:#f6f6f4}"
    "main{max-width:40rem;margin:0 auto}"
    "h1{font-size:1.45rem;line-height:1.25;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.4rem 0 .4rem}"
    "section{background:#fff;border:1px solid #ddd;border-radius:.6rem;padding:.2rem 1rem .6rem;margin:.8rem 0}"
    "ul{padding-left:1.2rem;margin:.3rem 0}li{margin:.35rem 0}"
    ".fp{font:700 1.35rem/1.3 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.06em;word-spacing:.2em}"
    "code,.hash{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8rem;overflow-wrap:anywhere}"
    "dl{margin:.4rem 0}dt{font-weight:600;margin-top:.5rem}dd{margin:0}"
    ".draft{white-space:pre-wrap;background:#f4f4f4;border-radius:.4rem;padding:.5rem;margin-top:.3rem}"
    ".note{border-left:.3rem solid #b26b00;background:#fff7e6;padding:.6rem .8rem;margin:.8rem 0}"
    ".ok{border-left-color:#1b7f3b;background:#eefaf1}.bad{border-left-color:#b3261e;background:#fdeeee}"
    "form{margin:1rem 0}label{display:block;font-weight:600;margin:.6rem 0 .3rem}"
    "textarea,input{box-sizing:border-box;width:100%;font:inherit;padding:.5rem;border:1px solid #888;"
    "border-radius:.4rem}.change summary{min-height:2.6rem;padding:.6rem 0;font-weight:600;color:#1f4e99;"
    "cursor:pointer}"
    "button{display:block;box-sizing:border-box;width:100%;min-height:3rem;font:600 1.05rem system-ui,sans-serif;"
    "border:0;border-radius:.5rem;padding:.7rem 1rem;margin:.6rem 0;cursor:pointer}"
    ".approve{background:#1b7f3b;color:#fff}.reject{background:#b3261e;color:#fff}"
    ".again{background:#1f4e99;color:#fff}"
    ".risk{border-left:.3rem solid #b3261e}pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem}"
    "button:focus,textarea:focus,input:focus,summary:focus{outline:3px solid #1f4e99;outline-offset:2px}"
    "table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35rem .3rem;"
    "border-bottom:1px solid #e3e3e3;vertical-align:top}"
    ".rows{list-style:none;padding:0}.rows li{background:#fff;border:1px solid #ddd;border-radius:.5rem;"
    "padding:.5rem .8rem;margin:.5rem 0;overflow-wrap:anywhere}" + _CARD_STYLE + _TIMELINE_STYLE
)
_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode("utf-8")).digest()).decode("ascii")

# Sent with every page: nothing cached, nothing leaked through a Referer header, no framing, no scripts.
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
}
CONTENT_TYPE = "text/html; charset=utf-8"

NEUTRAL_MESSAGE = "This approval link cannot be used: it is not a link to an approval. Nothing was changed."


def page(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="robots" content="noindex, nofollow">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main><h1>{escape(title)}</h1>{body}</main></body></html>"
    )


def items(lines: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"


def note(text: str, klass: str = "bad") -> str:
    return f'<p class="note {klass}" role="alert">{escape(text)}</p>' if text else ""
