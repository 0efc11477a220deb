"""sitemap.xml: the exams, their topics and the published questions, never a draft or a
question in review. URLs are on SITE_URL when it is set, else on the request's host."""

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.db.models import QuerySet

from questions.models import Exam, Question, Topic


class _OnTheSite(Sitemap):
    def get_domain(self, site: Any = None) -> str:
        if settings.SITE_URL:
            return urlsplit(settings.SITE_URL).netloc
        return str(super().get_domain(site))

    def get_protocol(self, protocol: str | None = None) -> str:
        if settings.SITE_URL:
            return urlsplit(settings.SITE_URL).scheme
        return str(super().get_protocol(protocol))


class ExamSitemap(_OnTheSite):
    changefreq = "weekly"
    priority = 0.8

    def items(self) -> QuerySet[Exam]:
        return Exam.objects.order_by("position", "slug")

    def lastmod(self, exam: Exam) -> Any:
        return exam.updated_at


class TopicSitemap(_OnTheSite):
    changefreq = "weekly"
    priority = 0.6

    def items(self) -> QuerySet[Topic]:
        return Topic.objects.select_related("exam").order_by("exam__position", "position", "slug")


class QuestionSitemap(_OnTheSite):
    changefreq = "monthly"
    priority = 0.5
    limit = 10_000  # URLs a sitemap page lists (search engines accept up to 50,000)

    def items(self) -> QuerySet[Question]:
        return Question.objects.published().only("uid", "updated_at").order_by("position", "uid")

    def lastmod(self, question: Question) -> Any:
        return question.updated_at


SITEMAPS = {"exams": ExamSitemap, "topics": TopicSitemap, "questions": QuestionSitemap}
