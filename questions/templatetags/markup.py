from django import template
from django.utils.safestring import SafeString

from questions.markup import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    """`{{ question.stem|markdown }}`: author markdown, rendered and sanitised."""
    return render_markdown(text)
