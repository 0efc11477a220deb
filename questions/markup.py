"""Author markdown to safe HTML.

Authors are trusted to write content, not markup: whatever the markdown produces passes through
nh3's allow-list, so no script, style, event handler or `javascript:` link reaches a page.
"""

import markdown as markdown_lib
import nh3
from django.utils.safestring import SafeString, mark_safe

ALLOWED_TAGS = {
    "p", "br", "hr", "strong", "em", "b", "i", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tr", "th", "td", "sub", "sup", "kbd",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}
EXTENSIONS = ["fenced_code", "tables", "sane_lists"]


def render_markdown(text: str) -> SafeString:
    """Render author markdown to sanitised HTML, safe to put in a template as it is."""
    if not text:
        return mark_safe("")
    html = markdown_lib.markdown(text, extensions=EXTENSIONS, output_format="html")
    cleaned = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return mark_safe(cleaned)  # noqa: S308 - sanitised by nh3 just above
