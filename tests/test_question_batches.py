"""The questions' difficulties move in batches, through the worker, not in the learner's
transaction: a batch applies the answers since the last one in attempt order, once; a batch
that fails loses nothing; a rebuild replays the recorded batch boundaries and gives the state
the batches built, also when batches ran beside concurrent answers (PostgreSQL in CI); and
recording an answer takes a fixed, small number of queries."""

import io
import time

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection

from progress.engine import learner_model
from progress.practice.models import Attempt, ReviewCard
from progress.practice.pending import QUESTION_BATCH, PendingWork
from progress.practice.recording import record_attempt
from progress.readiness.batches import apply_question_batch
from progress.readiness.in_use import current_model
from progress.readiness.models import (
    ExamAbility,
    QuestionBatch,
    QuestionReadiness,
    TopicReadiness,
)
from questions.pages.snapshot import question_page
from tests.factories import QuestionFactory, TopicFactory, UserFactory, record_answer
from tests.readiness_store import run_batch

pytestmark = pytest.mark.django_db


def state():
    """The stored state of learners and questions, comparable."""
    return (
        sorted(ExamAbility.objects.values_list("learner_id", "exam_id", "state", "movers")),
        sorted(
            TopicReadiness.objects.values_list("learner_id", "topic_id", "state", "difficulty_sum")
        ),
        sorted(
            QuestionReadiness.objects.values_list(
                "question_id", "difficulty", "variance", "answers"
            )
        ),
        list(Attempt.objects.order_by("pk").values_list("pk", "learner_logit")),
    )


def rebuild():
    call_command("rebuild_readiness", "--no-fit", stdout=io.StringIO(), stderr=io.StringIO())


def test_a_batch_applies_the_answers_since_the_last_one_in_attempt_order_once():
    question = QuestionFactory()
    learners = UserFactory.create_batch(4)
    for n, learner in enumerate(learners):
        record_answer(learner, question, right=n % 2 == 0)
    assert run_batch() == {question.topic.exam_id: 4}
    row = QuestionReadiness.objects.get(question=question)
    # The same steps, by hand, in attempt order, from the logits the answers kept.
    answers = list(Attempt.objects.order_by("pk").values_list("is_correct", "learner_logit"))
    item = current_model().starting_item(question.pk)
    for right, logit in answers:
        learner_model.learn_item(item, logit, right)
    assert (row.difficulty, row.variance, row.answers) == (item.difficulty, item.variance, 4)
    # In another order the question would have ended elsewhere: the order is the attempts'.
    other = current_model().starting_item(question.pk)
    for right, logit in reversed(answers):
        learner_model.learn_item(other, logit, right)
    assert other.difficulty != item.difficulty
    [batch] = QuestionBatch.objects.all()
    assert (batch.last_attempt_id, batch.answers) == (Attempt.objects.latest("pk").pk, 4)

    # Nothing new: a second run changes nothing and records no batch.
    before = state()
    assert run_batch() == {}
    assert state() == before
    assert QuestionBatch.objects.count() == 1


def test_answers_read_the_difficulty_the_last_batch_left():
    question = QuestionFactory()
    first, second, third = UserFactory.create_batch(3)
    record_answer(first, question, right=False)
    record_answer(second, question, right=False)
    # No batch yet: both answers met the question at its starting difficulty.
    start = current_model().starting_item(question.pk).difficulty
    sums = dict(TopicReadiness.objects.values_list("learner_id", "difficulty_sum"))
    assert sums[first.pk] == sums[second.pk] == start
    run_batch()
    record_answer(third, question, right=False)
    harder = QuestionReadiness.objects.get(question=question).difficulty
    assert harder > start
    assert TopicReadiness.objects.get(learner=third).difficulty_sum == harder


def test_a_failed_batch_loses_nothing(monkeypatch):
    questions = QuestionFactory.create_batch(2, topic=TopicFactory())
    learners = UserFactory.create_batch(3)
    for learner in learners:
        record_answer(learner, questions[0], right=True)
    run_batch()
    for learner in learners:
        record_answer(learner, questions[1], right=False)

    def crash(**kwargs):
        raise IntegrityError("the worker died here")

    monkeypatch.setattr(QuestionBatch.objects, "create", crash)
    before = state()
    with pytest.raises(IntegrityError):
        run_batch()
    assert state() == before  # rolled back: no question moved, no boundary recorded
    assert QuestionBatch.objects.count() == 1
    monkeypatch.undo()
    record_answer(learners[0], questions[0], right=False)
    # The next batch applies every answer since the last boundary: the three the failed one
    # did not, and the one after it.
    assert run_batch() == {questions[0].topic.exam_id: 4}
    assert dict(QuestionReadiness.objects.values_list("question_id", "answers")) == {
        questions[0].pk: 4,
        questions[1].pk: 3,
    }
    batched = state()
    rebuild()
    assert state() == batched


def test_a_rebuild_replays_the_boundaries_and_leaves_later_answers_to_the_next_batch():
    questions = QuestionFactory.create_batch(3, topic=TopicFactory())
    learners = UserFactory.create_batch(3)
    for round_ in range(3):
        for n, learner in enumerate(learners):
            record_answer(learner, questions[(n + round_) % 3], right=(n + round_) % 2 == 0)
        if round_ < 2:
            run_batch()  # two boundaries; the third round's answers wait for the next batch
    stored = state()
    rebuild()
    assert state() == stored
    assert QuestionBatch.objects.count() == 2
    run_batch()
    after_batch = state()
    rebuild()
    assert state() == after_batch


def test_the_logits_kept_for_the_next_batch_are_stored_however_many_answers_wait():
    # A site whose batches have not run for a while (no worker) has most of its answers after
    # the last boundary, and a rebuild keeps each one's logit for the next batch. On a site of
    # a million answers it read them back as a list of ids, more than a query takes (250,000
    # parameters on this SQLite, 65,535 on PostgreSQL), and the rebuild failed. Here 300,000
    # ids stand for those answers; three of them are answers that exist.
    question = QuestionFactory()
    learner = UserFactory()
    for right in (True, False, True):
        record_answer(learner, question, right=right)
    ids = sorted(Attempt.objects.values_list("pk", flat=True))
    logits = {pk: 0.0 for pk in range(ids[0], ids[0] + 300_000)}
    logits.update({ids[0]: 0.25, ids[1]: -0.5, ids[2]: 1.5})
    Attempt.objects.keep_logits(logits)
    assert list(Attempt.objects.order_by("pk").values_list("learner_logit", flat=True)) == [
        0.25,
        -0.5,
        1.5,
    ]


def test_answers_open_one_pending_batch():
    question = QuestionFactory()
    learners = UserFactory.create_batch(3)
    for learner in learners:
        record_answer(learner, question, right=True)
    assert PendingWork.objects.filter(work=QUESTION_BATCH).count() == 1


def test_recording_an_answer_takes_five_statements_on_postgresql(django_assert_num_queries):
    question = QuestionFactory()
    learner = UserFactory()
    record_answer(learner, question, right=False)  # the learner's rows and the batch exist
    page = question_page(question.uid)
    wrong = [o.key for o in page.options if not o.is_correct][:1]
    right = [o.key for o in page.options if o.is_correct][:1]
    for keys in (wrong, right):
        # savepoint; the learner's exam row (upsert and lock); the question's side (its state,
        # the learner's card, topic row and earlier answers, the pending batch); the writes
        # (the insert, the exam row, the topic's upsert, the card's upsert, the day's upsert:
        # one statement on PostgreSQL); release.
        writes = 1 if connection.vendor == "postgresql" else 5
        with django_assert_num_queries(4 + writes):
            record_attempt(learner=learner, page=page, grade=page.grade(keys), source="page")
    card = ReviewCard.objects.get(learner=learner, question=question)
    assert card.reviews == 3
    assert ExamAbility.objects.get(learner=learner).answers == 3
    assert TopicReadiness.objects.get(learner=learner).state["wins"] == 1


def test_a_batch_made_while_a_rebuild_replays_is_replayed_at_its_boundary():
    from progress.readiness.rebuild import rebuild_readiness

    question = QuestionFactory()
    learners = UserFactory.create_batch(3)
    record_answer(learners[0], question, right=False)
    run_batch()
    record_answer(learners[1], question, right=False)  # waits for the next batch

    class BusyLog:
        """The attempts, with a batch and a new answer arriving as the replay starts."""

        def __getattr__(self, name):
            return getattr(Attempt.objects, name)

        def answers_after(self, attempt_id):
            if attempt_id == 0:
                run_batch()
                record_answer(learners[2], question, right=False)  # reads the new difficulty
            return Attempt.objects.answers_after(attempt_id)

    rebuild_readiness(BusyLog(), fit=False)
    rebuilt = state()
    rebuild()  # a quiet rebuild agrees
    assert state() == rebuilt
    assert QuestionBatch.objects.count() == 2
    sums = dict(TopicReadiness.objects.values_list("learner_id", "difficulty_sum"))
    assert sums[learners[2].pk] == QuestionReadiness.objects.get(question=question).difficulty


@pytest.mark.django_db(transaction=True)
def test_batches_running_beside_concurrent_answers_keep_the_rebuild_exact():
    from django.test import Client

    from tests.threads import run_at_once

    topic = TopicFactory()
    questions = QuestionFactory.create_batch(2, topic=topic)
    learners = UserFactory.create_batch(4)
    jobs = []
    for learner in learners:
        for question in questions:

            def job(learner=learner, question=question):
                client = Client()
                client.force_login(learner)
                key = question.options.filter(is_correct=learner.pk % 2 == 0)[0].key
                response = client.post(question.get_absolute_url(), {"choice": key})
                assert response.status_code == 200

            jobs.append(job)
    # The worker's batches, at the same moment as the answers.
    jobs += [run_batch] * 3
    assert run_at_once(jobs) == []
    run_batch()  # whatever the racing batches left
    assert Attempt.objects.count() == 8
    assert sorted(QuestionReadiness.objects.values_list("answers", flat=True)) == [4, 4]
    assert sum(QuestionBatch.objects.values_list("answers", flat=True)) == 8
    stored = state()
    rebuild()
    assert state() == stored


def test_an_answer_recorded_before_the_batches_does_not_stop_them():
    question = QuestionFactory()
    learners = UserFactory.create_batch(3)
    record_answer(learners[0], question, right=True)
    # An attempt of the days before the batches: it moved its question at once, no logit.
    Attempt.objects.filter(learner=learners[0]).update(learner_logit=None)
    for learner in learners[1:]:
        record_answer(learner, question, right=False)
    assert run_batch() == {question.topic.exam_id: 2}
    assert QuestionReadiness.objects.get(question=question).answers == 2


def test_a_batch_whose_first_read_missed_an_answer_starts_again_under_the_lock():
    question = QuestionFactory()
    for n, learner in enumerate(UserFactory.create_batch(3)):
        record_answer(learner, question, right=n % 2 == 0)
    first = Attempt.objects.order_by("pk").first()

    class LateLog:
        """The attempts, the first of them not committed yet at the batch's first read."""

        reads = 0

        def __getattr__(self, name):
            return getattr(Attempt.objects, name)

        def batch_answers_after(self, attempt_id):
            self.reads += 1
            answers = Attempt.objects.batch_answers_after(attempt_id)
            if self.reads == 1:
                return (a for a in answers if a.attempt_id != first.pk)
            return answers

    assert apply_question_batch(LateLog()) == {question.topic.exam_id: 3}
    assert QuestionReadiness.objects.get(question=question).answers == 3
    stored = state()
    rebuild()
    assert state() == stored  # applied in attempt order, as the replay applies them


@pytest.mark.django_db(transaction=True)
def test_an_answer_does_not_queue_behind_a_batch_waiting_for_answers_in_flight(monkeypatch):
    """PostgreSQL grants a lock in the order it was asked for: a batch that waited for the
    answers in flight would stop every answer after it until they commit."""
    if connection.vendor != "postgresql":
        pytest.skip("the batch lock is PostgreSQL's; SQLite runs one writer at a time")
    import threading

    from django.db import transaction

    from progress.readiness import batches

    monkeypatch.setattr(batches, "LOCK_PATIENCE", 60.0)  # the batch keeps trying meanwhile
    question = QuestionFactory()
    learners = UserFactory.create_batch(3)
    record_answer(learners[0], question, right=True)
    in_flight, answered = threading.Event(), threading.Event()
    outcome = {}

    def slow_answer():
        # An answer whose transaction is still open: it holds the lock's shared side.
        with transaction.atomic():
            record_answer(learners[1], question, right=False)
            in_flight.set()
            # Commits once the third answer is in, or after 20 s if it is stuck behind.
            outcome["answered while in flight"] = answered.wait(20)

    def batch():
        in_flight.wait(20)
        outcome["batch"] = run_batch()

    def third_answer():
        in_flight.wait(20)
        time.sleep(0.3)  # the batch is asking for the lock by now
        record_answer(learners[2], question, right=True)
        answered.set()

    def on_its_own_connection(job):
        try:
            job()
        finally:
            connection.close()

    jobs = (slow_answer, batch, third_answer)
    threads = [threading.Thread(target=on_its_own_connection, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outcome["answered while in flight"]
    # The batch took all three, the one in flight included, once it had committed.
    assert outcome["batch"] == {question.topic.exam_id: 3}
    stored = state()
    rebuild()
    assert state() == stored


def test_an_answer_while_a_rebuild_writes_the_learners_rows_is_kept(monkeypatch):
    from progress.readiness import rebuild as rebuild_module

    question = QuestionFactory()
    learners = UserFactory.create_batch(3)
    for n, learner in enumerate(learners):
        record_answer(learner, question, right=n % 2 == 0)
    run_batch()
    written_then = rebuild_module._delete_rows_not_in

    def answer_then(states):
        # The learners' rows are written (outside the lock); an answer comes before the lock.
        record_answer(learners[0], question, right=False)
        written_then(states)

    monkeypatch.setattr(rebuild_module, "_delete_rows_not_in", answer_then)
    rebuild_module.rebuild_readiness(Attempt.objects, fit=False)
    monkeypatch.undo()
    assert ExamAbility.objects.get(learner=learners[0]).answers == 2
    assert TopicReadiness.objects.get(learner=learners[0]).answers == 2
    rebuilt = state()
    rebuild()  # a quiet rebuild agrees
    assert state() == rebuilt


def test_a_rebuild_drops_the_rows_no_answer_gives_a_state():
    question = QuestionFactory()
    learner, other = UserFactory.create_batch(2)
    record_answer(learner, question, right=True)
    record_answer(other, question, right=True)
    Attempt.objects.filter(learner=other).delete()  # its rows now stand for no answer
    rebuild()
    assert list(ExamAbility.objects.values_list("learner_id", flat=True)) == [learner.pk]
    assert list(TopicReadiness.objects.values_list("learner_id", flat=True)) == [learner.pk]


def test_a_refit_makes_a_batch_first_so_that_little_is_replayed_under_the_lock():
    """The worker that refits runs no batch meanwhile: without one of its own, every answer
    since the last batch would be replayed while the answers wait."""
    from progress.readiness.rebuild import rebuild_readiness

    question = QuestionFactory()
    for n, learner in enumerate(UserFactory.create_batch(4)):
        record_answer(learner, question, right=n % 2 == 0)
    reads = []

    class WatchedLog:
        def __getattr__(self, name):
            return getattr(Attempt.objects, name)

        def answers_after(self, attempt_id):
            reads.append(attempt_id)
            return Attempt.objects.answers_after(attempt_id)

    rebuild_readiness(WatchedLog(), fit=False, batch=run_batch)
    last = Attempt.objects.order_by("-pk").values_list("pk", flat=True).first()
    assert QuestionBatch.objects.get().last_attempt_id == last
    assert reads[-1] == last  # under the lock: only what came after the last answer
    stored = state()
    rebuild()
    assert state() == stored
