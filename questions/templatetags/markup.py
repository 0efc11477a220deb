from decimal import Decimal

from django import template
from django.utils.safestring import SafeString

from questions.markup import render_markdown, render_markdown_inline
from questions.models import format_number

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    """`{{ question.stem|markdown }}`: author markdown, rendered and sanitised."""
    return render_markdown(text)


@register.filter(name="markdown_inline")
def markdown_inline_filter(text: str) -> SafeString:
    """`{{ option.text|markdown_inline }}`: as `markdown`, without a lone paragraph's <p>."""
    return render_markdown_inline(text)


@register.filter(name="number")
def number_filter(value: Decimal | None) -> str:
    """`{{ topic.weight|number }}`: 70 for 70.00, 62.5 for 62.50."""
    return "" if value is None else format_number(Decimal(value))
