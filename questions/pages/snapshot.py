"""What a public question page shows, rendered once and cached.

A question changes only when a curator edits it, so its page content (markdown already turned
into safe HTML, options, rationales, related questions) is built with three queries and kept
in the cache until it changes. Every write path (admin, importer) calls `forget_questions`,
which drops the page once the transaction commits (from this process's cache, or from the
shared one, Redis through CACHE_URL, for every process at once) and records a PageChange row;
with the default per-process cache, the other processes read those rows every POLL_SECONDS
and drop the pages too. So an edit shows everywhere within seconds, and a page is built once,
not once a minute.

The snapshot holds which options are correct: it stays on the server, and templates show that
part only in the result, after a valid answer.
"""

import datetime
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.safestring import SafeString

from courseiva.lib import shared_html
from courseiva.lib.sql import insert_rows
from questions.grading import CHOICE_KINDS, PART_KINDS, AnswerKey, Response
from questions.grading import grade as grade_response
from questions.markup import quick_snippet, render_markdown, render_markdown_inline
from questions.models import (
    MIN_SHARE_LEARNERS,
    Author,
    Grade,
    Kind,
    Option,
    PageChange,
    Question,
    Rationale,
    RelatedQuestion,
    Scoring,
    Status,
)
from questions.pages import parts as item_parts
from questions.pages import query as page_query
from questions.pages.parts import CaseStudyView, ExhibitPiece, OptionView, PartRow, PartView

# The question page's template; its partials are the htmx fragments (form, result).
QUESTION_TEMPLATE = "questions/question.html"
# A page stays cached until a write drops it: in this process and the shared cache at once
# (forget_questions), in the other processes' own caches within POLL_SECONDS (PageChange).
CACHE_SECONDS = 24 * 60 * 60
POLL_SECONDS = 20
# Changes committed this long before a poll are still read by it: commits are not instant.
POLL_OVERLAP = timedelta(seconds=5)
# PageChange rows older than this have been read by every process that is still running.
CHANGE_RETENTION = timedelta(days=1)
# Bump when QuestionPage changes shape or module: a pickle names its class's module, and a
# process would fail to read one kept by the code before it (a shared Redis keeps them).
CACHE_PREFIX = "question-page:v7:"
# A question page as a visitor first sees it (the form), rendered once: a visitor's GET is
# served from this alone, without the snapshot. Dropped with the snapshot (forget_questions,
# the poll); bump when the question template changes.
FORM_HTML_PREFIX = "question-form-html:v2:"
MISSING = "missing"  # cached for unknown uids too, so that probing them costs no query
# The version of the catalog, blueprint and topic pages (questions.pages.listings): everything they
# cache is keyed by it, so dropping this one key retires all of it. In the shared cache with
# Redis, so that an edit shows on every server's next request; dropped in each process's own
# cache by the poll, through a PageChange row of this name (no question uid has a colon).
LISTINGS_VERSION_KEY = "listings-version:v1"
LISTINGS_CHANGE = ":listings"


@dataclass(frozen=True)
class AuthorView:
    name: str
    credentials: str
    role: str
    bio: str


@dataclass(frozen=True)
class RelatedView:
    uid: str
    snippet: str


@dataclass(frozen=True)
class Reference:
    title: str
    url: str


@dataclass(frozen=True)
class QuestionPage:
    # New at every build: keys the rendered HTML cached from this snapshot, so that dropping
    # the snapshot (forget_questions) retires every rendering of it too.
    version: str
    question_id: int
    topic_id: int
    exam_id: int
    uid: str
    status: str
    kind: str
    exam_slug: str
    exam_code: str
    exam_title: str
    topic_slug: str
    topic_title: str
    snippet: str
    stem_html: SafeString
    trap_html: SafeString
    explanation_html: SafeString
    options: tuple[OptionView, ...]
    related: tuple[RelatedView, ...]
    author: AuthorView | None
    reviewed_on: datetime.date | None
    references: tuple[Reference, ...]
    # The exam's published questions, and the published questions before and after this one
    # in its topic's order: every page of an exam is dropped when these change (forget_exams).
    exam_question_count: int = 0
    previous_uid: str | None = None
    next_uid: str | None = None
    answered_by: int = 0  # learners whose first answer is counted in the options' chosen_by
    scoring: str = Scoring.ALL
    # The item types beyond choice: the parts (prompts, statements, blanks, gaps), the
    # exhibit (cut at its drop-downs), the order the options are shown in (an ordering's
    # steps and a matching's pool arrive shuffled), the shared scenario.
    parts: tuple[PartView, ...] = ()
    exhibit_html: SafeString = item_parts.NOTHING
    exhibit_pieces: tuple[ExhibitPiece, ...] = ()
    shown_order: tuple[int, ...] = ()
    reuse_answers: bool = False
    case_study: CaseStudyView | None = None

    @property
    def is_published(self) -> bool:
        return self.status == Status.PUBLISHED

    @property
    def is_choice(self) -> bool:
        return self.kind in CHOICE_KINDS

    @property
    def kind_label(self) -> str:
        return Kind(self.kind).label

    @property
    def shown_options(self) -> tuple["OptionView", ...]:
        if not self.shown_order:
            return self.options
        return tuple(self.options[index] for index in self.shown_order)

    @property
    def step_count(self) -> int:
        """An ordering's places: the steps that belong in it."""
        return sum(1 for option in self.options if option.order is not None)

    @property
    def answer_key(self) -> AnswerKey:
        steps = sorted((o for o in self.options if o.order is not None), key=lambda o: o.order or 0)
        return AnswerKey(
            kind=self.kind,
            scoring=self.scoring,
            correct=tuple(
                option.key
                for option in (steps if self.kind == Kind.ORDERING else self.options)
                if self.kind == Kind.ORDERING or option.is_correct
            ),
            options=tuple(option.key for option in self.options),
            parts=tuple(part.answer for part in self.parts),
            reuse=self.reuse_answers,
        )

    @property
    def instructions(self) -> str:
        """What the learner is asked to do, above the inputs."""
        if self.kind == Kind.ORDERING:
            places, steps = self.step_count, len(self.options)
            if places < steps:
                return f"Choose {places} of these {steps} steps and give each its place, 1 first."
            return f"Put the {steps} steps in order: give each its place, 1 first."
        if self.kind == Kind.MATCHING:
            extra = (
                " An answer may fit more than one prompt."
                if self.reuse_answers
                else " Use each answer once at most"
                + ("; some fit no prompt." if len(self.options) > len(self.parts) else ".")
            )
            return "Match each prompt with its answer." + extra
        if self.kind == Kind.YES_NO:
            return "For each statement, choose Yes or No."
        if self.kind == Kind.FILL_IN:
            return "Fill in the blank." if len(self.parts) == 1 else "Fill in the blanks."
        if self.kind == Kind.DROPDOWN:
            if any(not part.choice_views for part in self.parts):
                return "Choose or type the right value in each gap of the exhibit."
            return "Choose the right value in each drop-down of the exhibit."
        return "Select all that apply." if self.is_multiple else "Choose one answer."

    @property
    def part_keys(self) -> frozenset[str]:
        return frozenset(part.key for part in self.parts)

    @property
    def is_multiple(self) -> bool:
        return self.kind == Kind.MULTIPLE

    @property
    def status_label(self) -> str:
        return Status(self.status).label

    @property
    def option_keys(self) -> frozenset[str]:
        return frozenset(option.key for option in self.options)

    @property
    def correct_options(self) -> list["Lettered"]:
        """The correct options with their letters, for "Correct answer: C. ..."."""
        return [
            Lettered(letter_for(index), option)
            for index, option in enumerate(self.options)
            if option.is_correct
        ]

    @property
    def shares_shown(self) -> bool:
        """Whether enough learners answered for how they answered to say something."""
        return self.answered_by >= MIN_SHARE_LEARNERS

    def grade(self, response: Response | Iterable[str]) -> Grade:
        """Grade a response, or the keys it is stored as (see questions.grading)."""
        if not isinstance(response, Response):
            response = Response.from_keys(response)
        return grade_response(self.answer_key, response)

    def result_context(self, grade: Grade) -> dict[str, object]:
        """What the result template shows of an answer: the verdict and its breakdown."""
        return {
            "grade": grade,
            "breakdown": self.breakdown(grade),
            "part_rows": [] if self.is_choice else self.part_breakdown(grade),
        }

    def part_breakdown(self, grade: Grade) -> list[PartRow]:
        """The result of a question of parts, or an ordering: part by part."""
        return item_parts.part_rows(self.kind, self.parts, self.options, grade)

    def breakdown(self, grade: Grade) -> list["OptionResult"]:
        if not self.is_choice:
            return []
        return [
            OptionResult(
                option=option,
                letter=letter_for(index),
                chosen=option.key in grade.chosen,
                missed=option.key in grade.missed,
                share=self.share_of(option),
            )
            for index, option in enumerate(self.options)
        ]

    def share_of(self, option: OptionView) -> int | None:
        """The percent of learners whose first answer chose the option; None while too few
        answered."""
        if not self.shares_shown:
            return None
        return round(100 * option.chosen_by / self.answered_by)


@dataclass(frozen=True)
class Lettered:
    letter: str
    option: OptionView


@dataclass(frozen=True)
class OptionResult:
    option: OptionView
    letter: str
    chosen: bool
    missed: bool
    share: int | None = None  # percent of learners who chose it, when enough answered

    @property
    def state(self) -> str:
        """right (chosen, correct), wrong (chosen, not correct), missed (correct, not chosen),
        or other."""
        if self.chosen:
            return "right" if self.option.is_correct else "wrong"
        return "missed" if self.missed else "other"


def letter_for(index: int) -> str:
    return "ABCDEFGH"[index]


class _Poll:
    """When this process last read PageChange, and up to when."""

    next_at = time.monotonic() + POLL_SECONDS
    seen_until = timezone.now()


def _drop_pages_changed_elsewhere() -> None:
    """Every POLL_SECONDS, one query: drop from the cache the pages that any process changed
    since the last look. Between polls, nothing."""
    if time.monotonic() < _Poll.next_at:
        return
    now = timezone.now()
    changed = set(
        PageChange.objects.filter(changed_at__gte=_Poll.seen_until - POLL_OVERLAP).values_list(
            "uid", flat=True
        )
    )
    failures = getattr(cache, "failures", 0)
    if changed:
        cache.delete_many(_cache_keys(changed))
    _Poll.next_at = time.monotonic() + POLL_SECONDS
    # A shared cache that did not answer (courseiva.lib.cache) may come back holding these pages:
    # read the same changes again at the next poll, until the drop reaches it.
    if getattr(cache, "failures", 0) == failures:
        _Poll.seen_until = now


def _cache_keys(uids: Iterable[str]) -> list[str]:
    """Everything cached of these questions' pages (and of the listings, for LISTINGS_CHANGE)."""
    return [
        key
        for uid in uids
        for key in (
            [LISTINGS_VERSION_KEY]
            if uid == LISTINGS_CHANGE
            else [prefix + uid for prefix in (CACHE_PREFIX, FORM_HTML_PREFIX)]
        )
    ]


def listings_version() -> str:
    """The current version of the listing pages (questions.pages.listings): read before their rows,
    so that rows read before an edit's commit are cached under the version it retires. One
    cache read (three when a new version starts), no query (but the poll's, every
    POLL_SECONDS)."""
    _drop_pages_changed_elsewhere()
    version = cache.get(LISTINGS_VERSION_KEY)
    if isinstance(version, str):
        return version
    # add(): of two processes starting a version at once in a shared cache, one wins.
    cache.add(LISTINGS_VERSION_KEY, secrets.token_hex(8), CACHE_SECONDS)
    version = cache.get(LISTINGS_VERSION_KEY)
    return version if isinstance(version, str) else secrets.token_hex(8)


def form_html(uid: str) -> str | None:
    """The page of question `uid` as a visitor first sees it, rendered, with the CSRF token
    still to fill in; None when it is not cached. No query (but the poll's, every
    POLL_SECONDS)."""
    _drop_pages_changed_elsewhere()
    html = cache.get(FORM_HTML_PREFIX + uid)
    return html if isinstance(html, str) else None


def keep_form_html(uid: str, html: str) -> None:
    cache.set(FORM_HTML_PREFIX + uid, html, CACHE_SECONDS)


def page_html(
    request: HttpRequest,
    page: QuestionPage,
    template: str,
    context: dict[str, object],
    variant: str,
) -> str:
    """Render once per question version and variant (the form, or the result of one set of
    choices), keep the HTML (courseiva.lib.shared_html), and fill in this request's CSRF token
    and CSP nonce. Rendering the templates costs several times more than the rest of the
    request. The context must hold nothing of one viewer's."""
    key = f"question-html:{page.version}:{template}:{variant}"
    html = shared_html.kept(key)
    if html is None:
        html = shared_html.render_shared(request, template, context)
        shared_html.keep(key, html, CACHE_SECONDS)
    if variant == "form" and template == QUESTION_TEMPLATE:
        keep_form_html(page.uid, html)
    return shared_html.filled(request, html)


def question_page(uid: str) -> QuestionPage | None:
    """The page content of question `uid` (any status), or None when there is no such
    question. Three queries on a cache miss, none on a hit."""
    return question_pages([uid]).get(uid)


def question_pages(uids: Iterable[str]) -> dict[str, QuestionPage]:
    """The page contents of several questions at once (a mock exam's review): one cache
    round trip, and three queries for all the misses together."""
    _drop_pages_changed_elsewhere()
    keys = {CACHE_PREFIX + uid: uid for uid in uids}
    cached = cache.get_many(list(keys))
    found = {keys[key]: page for key, page in cached.items()}
    missing = [uid for uid in keys.values() if uid not in found]
    if missing:
        built = build_question_pages(missing)
        cache.set_many(
            {CACHE_PREFIX + uid: built.get(uid, MISSING) for uid in missing}, CACHE_SECONDS
        )
        found.update(built)
    return {uid: page for uid, page in found.items() if page != MISSING}


def build_question_pages(uids: list[str]) -> dict[str, QuestionPage]:
    """The pages of these questions (any status), built from their rows: three queries
    (questions.pages.query)."""
    rows = page_query.question_rows(uids)
    ids = [row.question.pk for row in rows]
    options: dict[int, list[OptionView]] = {}
    pools: dict[int, dict[int, OptionView]] = {}
    gaps: dict[int, list[OptionView]] = {}
    for option, rationale in page_query.option_rows(ids):
        view = _option_view(option, rationale)
        if option.part_id is not None:  # a drop-down's choice: it belongs to its gap
            gaps.setdefault(option.part_id, []).append(view)
            continue
        options.setdefault(option.question_id, []).append(view)
        pools.setdefault(option.question_id, {})[option.pk] = view
    with_parts = [row.question.pk for row in rows if row.question.kind in PART_KINDS]
    parts: dict[int, list[PartView]] = {}
    if with_parts:  # one query more, only for the types made of parts
        stored = page_query.part_rows(with_parts)
        kinds = {row.question.pk: row.question.kind for row in rows}
        for question_id in with_parts:
            mine = [part for part in stored if part.question_id == question_id]
            parts[question_id] = list(
                item_parts.part_views(kinds[question_id], mine, pools.get(question_id, {}), gaps)
            )
    related: dict[int, list[RelatedView]] = {}
    for from_id, uid, stem in page_query.related_rows(ids):
        related.setdefault(from_id, []).append(
            RelatedView(uid=uid, snippet=quick_snippet(stem, 120))
        )
    return {
        row.question.uid: _page_of(
            row,
            options.get(row.question.pk, []),
            related.get(row.question.pk, []),
            parts.get(row.question.pk, []),
        )
        for row in rows
    }


def _option_view(option: Option, rationale: Rationale | None) -> OptionView:
    # Every write path gives each option a rationale; without one the page stays up.
    why = rationale or Rationale(option=option, why="")
    return OptionView(
        key=option.key,
        text=option.text,
        text_html=render_markdown_inline(option.text),
        is_correct=option.is_correct,
        why_html=render_markdown(why.why),
        tempting_html=render_markdown(why.tempting_because),
        right_when_html=render_markdown(why.right_when),
        chosen_by=option.chosen_by,
        order=option.order,
    )


def _page_of(
    row: page_query.QuestionRow,
    options: list[OptionView],
    related: list[RelatedView],
    parts: list[PartView],
) -> QuestionPage:
    question, exam, topic = row.question, row.exam, row.topic
    exhibit_html = render_markdown(question.exhibit)
    shown: tuple[int, ...] = ()
    if question.kind in (Kind.ORDERING, Kind.MATCHING):  # the pool arrives shuffled
        keys = [option.key for option in options]
        right = [o.key for o in sorted(options, key=lambda o: o.order or 0) if o.order]
        shown = tuple(item_parts.shuffled(keys, right))
    return QuestionPage(
        version=secrets.token_hex(8),
        question_id=question.pk,
        topic_id=topic.pk,
        exam_id=exam.pk,
        uid=question.uid,
        status=question.status,
        kind=question.kind,
        exam_slug=exam.slug,
        exam_code=exam.code,
        exam_title=exam.title,
        topic_slug=topic.slug,
        topic_title=topic.title,
        snippet=quick_snippet(question.stem, 155),
        stem_html=render_markdown(question.stem),
        trap_html=render_markdown(question.trap),
        explanation_html=render_markdown(question.explanation),
        options=tuple(options),
        related=tuple(related),
        author=_author_of(row.author),
        reviewed_on=question.reviewed_on,
        references=tuple(
            Reference(title=str(ref.get("title", "")), url=str(ref.get("url", "")))
            for ref in question.references
            if isinstance(ref, dict)
        ),
        exam_question_count=row.exam_question_count or 0,
        previous_uid=row.previous_uid,
        next_uid=row.next_uid,
        answered_by=question.answered_by,
        scoring=question.scoring,
        parts=tuple(parts),
        exhibit_html=exhibit_html,
        exhibit_pieces=item_parts.exhibit_pieces(exhibit_html, len(parts))
        if question.kind == Kind.DROPDOWN
        else (),
        shown_order=shown,
        reuse_answers=question.reuse_answers,
        case_study=item_parts.case_study_view(row.case_study),
    )


def _author_of(author: Author | None) -> AuthorView | None:
    if author is None:
        return None
    return AuthorView(
        name=author.name, credentials=author.credentials, role=author.role, bio=author.bio
    )


def forget_questions(uids: Iterable[str], *, listings: bool = False) -> None:
    """Drop the cached pages of these questions and of the questions that link to them (their
    "Go deeper" lists show these), once the current transaction commits: dropping earlier would
    let a concurrent request cache the old rows again. With `listings`, the catalog, blueprint
    and topic pages too (what they list changed: a question's status, order or summary, an
    exam's or topic's names). Three queries: the linking questions, the change rows, the
    pruning of old ones."""
    uids = set(uids)
    if not uids and not listings:
        return
    linking = (
        set(
            RelatedQuestion.objects.filter(to_question__uid__in=uids).values_list(
                "from_question__uid", flat=True
            )
        )
        if uids
        else set()
    )
    changed = uids | linking | ({LISTINGS_CHANGE} if listings else set())
    now = timezone.now()
    # Other processes read these rows (their own caches); this one and a shared cache drop
    # the pages right after the commit.
    insert_rows(PageChange, ["uid", "changed_at"], ((uid, now) for uid in changed))
    PageChange.objects.filter(changed_at__lt=now - CHANGE_RETENTION).delete()
    keys = _cache_keys(changed)
    transaction.on_commit(lambda: cache.delete_many(keys))


def forget_exam(exam_id: int) -> None:
    """After an exam or topic edit: every page of the exam shows its names."""
    forget_exams([exam_id])


def forget_exams(exam_ids: Iterable[int]) -> None:
    """Every page of these exams, and the listings: after an edit of their names, and after a
    change of which questions they publish or of their order, which every page shows (the
    exam's count of published questions, the previous and next questions of the topic)."""
    forget_questions(
        Question.objects.filter(topic__exam_id__in=list(exam_ids)).values_list("uid", flat=True),
        listings=True,
    )


def forget_listings() -> None:
    """The catalog, blueprint and topic pages, once the current transaction commits (an exam
    or an empty topic deleted). Two queries: the change row, the pruning of old ones."""
    forget_questions((), listings=True)
