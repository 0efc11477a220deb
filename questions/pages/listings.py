"""What the catalog, an exam's blueprint and a topic's question list show, cached per version.

These pages change only when a curator edits the bank, yet every visitor used to cost their
queries and a template rendering. Their content is now read once per version of the listings
(`questions.pages.listings_version`, dropped by every write path with the question pages) and
kept in the cache under that version: for signed-in users the page is rendered from it with
their own parts (no query for the content), and for visitors the rendered page itself is kept
(questions.pages.views). A new version retires everything kept under the old one at once.

Keys hold only what the URL names (slugs, a page number read from the content's own page
count), never a request header, so no client can choose what is cached for everyone.
"""

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Count, Q

from questions.markup import quick_snippet
from questions.models import Difficulty, Exam, Question, Status, Topic
from questions.pages.snapshot import CACHE_SECONDS

TOPIC_PAGE_SIZE = 25
# Bump when what is cached here changes shape or module (a pickle names its class's module).
PREFIX = "listing:v2:"


@dataclass(frozen=True)
class ExamListing:
    """An exam and its topics in blueprint order, each with `published_count`."""

    exam: Exam
    topics: tuple[Topic, ...]


@dataclass(frozen=True)
class TopicListing:
    """A topic (with its exam) and how many questions it publishes: what a topic page needs
    before it knows which page of questions to show."""

    topic: Topic
    question_count: int


@dataclass(frozen=True)
class QuestionRow:
    """One question in a topic's list."""

    uid: str
    snippet: str
    kind: str
    difficulty: str

    @property
    def difficulty_label(self) -> str:
        return Difficulty(self.difficulty).label if self.difficulty else ""


def catalog(version: str) -> list[Exam]:
    """Every exam with its counts (Exam.objects.with_counts), in catalog order. One query on a
    miss, none on a hit."""
    key = f"{PREFIX}{version}:catalog"
    exams = cache.get(key)
    if exams is None:
        exams = list(Exam.objects.with_counts())
        cache.set(key, exams, CACHE_SECONDS)
    return list(exams)


def exam_listing(version: str, exam_slug: str) -> ExamListing | None:
    """The exam of `exam_slug` and its topics; None when there is none (not cached: a probe
    of made-up slugs costs a query, never a cache entry). Two queries on a miss, none on a
    hit."""
    key = f"{PREFIX}{version}:exam:{exam_slug}"
    listing = cache.get(key)
    if isinstance(listing, ExamListing):
        return listing
    exam = Exam.objects.filter(slug=exam_slug).first()
    if exam is None:
        return None
    topics = exam.topics.annotate(
        published_count=Count("questions", filter=Q(questions__status=Status.PUBLISHED))
    ).order_by("position", "slug")
    listing = ExamListing(exam=exam, topics=tuple(topics))
    cache.set(key, listing, CACHE_SECONDS)
    return listing


def topic_listing(version: str, exam_slug: str, topic_slug: str) -> TopicListing | None:
    """The topic of these slugs and its count of published questions; None when there is no
    such topic (not cached). Two queries on a miss, none on a hit."""
    key = f"{PREFIX}{version}:topic:{exam_slug}:{topic_slug}"
    listing = cache.get(key)
    if isinstance(listing, TopicListing):
        return listing
    topic = (
        Topic.objects.select_related("exam").filter(exam__slug=exam_slug, slug=topic_slug).first()
    )
    if topic is None:
        return None
    count = Question.objects.published().filter(topic=topic).count()
    listing = TopicListing(topic=topic, question_count=count)
    cache.set(key, listing, CACHE_SECONDS)
    return listing


def topic_rows(version: str, listing: TopicListing, number: int) -> list[QuestionRow]:
    """Page `number` (from 1, of TOPIC_PAGE_SIZE) of the topic's published questions, in bank
    order. One query on a miss, none on a hit."""
    topic = listing.topic
    key = f"{PREFIX}{version}:rows:{topic.exam.slug}:{topic.slug}:{number}"
    rows = cache.get(key)
    if rows is None:
        start = (number - 1) * TOPIC_PAGE_SIZE
        questions = (
            Question.objects.published()
            .filter(topic=topic)
            .only("uid", "stem", "kind", "difficulty")
            .order_by("position", "uid")[start : start + TOPIC_PAGE_SIZE]
        )
        rows = [
            QuestionRow(
                uid=question.uid,
                snippet=quick_snippet(question.stem, 200),
                kind=question.kind,
                difficulty=question.difficulty,
            )
            for question in questions
        ]
        cache.set(key, rows, CACHE_SECONDS)
    return list(rows)


def html_key(version: str, *parts: object) -> str:
    """The key of a listing page rendered for visitors: the version and what the URL names."""
    return f"{PREFIX}{version}:html:" + ":".join(str(part) for part in parts)
