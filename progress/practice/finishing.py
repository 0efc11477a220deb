"""Answers kept for the end, and the end of a quiz: a quiz built with the answers at the end
saves each answer as posted (`save_answer`, changeable until the end) and grades nothing, so
that no verdict, correct answer or rationale reaches the learner, nor moves their readiness
or reviews, before it is finished. `finish` ends a quiz (the learner's "Finish", or its time
limit run out on the server's clock) and, for those, grades and records the saved answers
together, once, as a mock exam's submission does."""

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.http import QueryDict
from django.utils import timezone

from progress.engine import learner_model
from progress.practice.models import Attempt, Quiz, QuizItem, Source
from progress.practice.recording import answer_record, insert_answers
from questions.pages.forms import AnswerForm
from questions.pages.snapshot import question_pages

# What a saved answer keeps of the post: the answer's own fields, not the form's token.
NOT_SAVED = {"csrfmiddlewaretoken", "served", "go"}


def saved_fields(post: QueryDict) -> dict[str, list[str]]:
    return {key: post.getlist(key) for key in post if key not in NOT_SAVED}


def as_post(saved: dict[str, list[str]] | None) -> QueryDict:
    """A saved answer as the post it came from, for the answer form to read again."""
    data = QueryDict(mutable=True)
    for key, values in (saved or {}).items():
        data.setlist(key, [str(value) for value in values])
    return data


def save_answer(item: QuizItem, post: QueryDict) -> bool:
    """Keep the answer (checked by the caller's form) to an item of a quiz with the answers
    at the end, in place of an earlier one; False when the quiz has ended since (the last
    second of its time, another tab's "Finish"): nothing is kept then. Two statements, in
    a transaction."""
    fields = saved_fields(post)
    open_item = QuizItem.objects.filter(
        pk=item.pk, quiz__finished_at__isnull=True, attempt__isnull=True
    )
    with transaction.atomic():
        # The first answer counts the item as answered; two tabs' first answers count once.
        kept = open_item.filter(saved__isnull=True).update(saved=fields)
        if kept:
            Quiz.objects.filter(pk=item.quiz_id).update(answered_count=F("answered_count") + 1)
            item.quiz.answered_count += 1
        else:
            kept = open_item.update(saved=fields)
    if kept:
        item.saved = fields
    return bool(kept)


def finish(quiz: Quiz, at: datetime | None = None) -> bool:
    """End the quiz at `at` (now): the first caller to set its end does it, in one
    transaction; another (a second tab, a reload at the deadline) finds it done and gets
    False. A timed quiz's clock stops there. With the answers at the end, every saved answer
    to a question still published is graded from the cached pages and recorded, as every
    answer is (readiness, reviews, daily totals), and the quiz's score is set. Queries: a
    fixed handful, whatever the number of questions."""
    at = at or timezone.now()
    used = quiz.time_used
    if quiz.clock_since is not None and quiz.time_limit is not None:
        used = min(quiz.time_limit, used + (at - quiz.clock_since))
    with transaction.atomic():
        won = Quiz.objects.filter(pk=quiz.pk, finished_at__isnull=True).update(
            finished_at=at, clock_since=None, time_used=used
        )
        if not won:
            quiz.refresh_from_db()
            return False
        quiz.finished_at, quiz.clock_since, quiz.time_used = at, None, used
        if quiz.answers_at_end:
            _record_saved(quiz, at)
    return True


def _record_saved(quiz: Quiz, at: datetime) -> None:
    items = list(
        quiz.items.filter(saved__isnull=False, attempt__isnull=True).select_related("question")
    )
    shown = [item for item in items if item.question is not None and item.question.is_published]
    pages = question_pages(item.question.uid for item in shown if item.question)
    attempts = []
    for item in shown:
        assert item.question is not None
        page = pages.get(item.question.uid)
        form = AnswerForm(page, as_post(item.saved)) if page is not None else None
        if page is None or form is None or not form.is_valid():
            continue  # the question changed shape since: the saved answer no longer fits
        grade = page.grade(form.response)
        attempts.append(
            Attempt(
                learner_id=quiz.learner_id,
                question_id=page.question_id,
                question_uid=page.uid,
                exam_id=page.exam_id,
                topic_id=page.topic_id,
                chosen=answer_record(page, grade),
                is_correct=grade.is_correct,
                score=learner_model.share(grade.score),
                source=Source.QUIZ,
                quiz_item=item,
                answered_at=at,
            )
        )
    if attempts:
        insert_answers(quiz.learner_id, attempts, counted_at=at)
    quiz.answered_count = len(attempts)
    quiz.right_count = sum(1 for a in attempts if a.is_correct)
    quiz.partly_right_count = sum(1 for a in attempts if a.is_partly_right)
    quiz.marks = sum(a.score for a in attempts)  # exact: see learner_model.share
    Quiz.objects.filter(pk=quiz.pk).update(
        answered_count=quiz.answered_count, right_count=quiz.right_count,
        partly_right_count=quiz.partly_right_count, marks=quiz.marks,
    )  # fmt: skip
