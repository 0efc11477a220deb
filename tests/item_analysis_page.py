"""Reading the item analysis page as an instructor reads it, in the tests: its question rows
by uid, and a row's figures by column."""

import re


def cards(html):
    """The page's question rows, by uid."""
    found = {}
    if "<tbody>" not in html:
        return found
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    for card in body.split("<tr")[1:]:
        uid = re.search(r'<span class="exam-code">([^<]+)</span>', card)
        assert uid is not None
        found[uid.group(1)] = card
    return found


FIGURES = ("Learners", "Facility", "Discrimination", "Median time")


def figures(row):
    """A row's figures by column, as text."""
    cells = re.findall(r"<td>(.*?)</td>", row, re.S)
    return {name: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip()
            for name, cell in zip(FIGURES, cells, strict=False)}  # fmt: skip
