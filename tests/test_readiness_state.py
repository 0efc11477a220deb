"""The learner model's stored state: every recorded answer updates it in its own transaction,
concurrent answers lose nothing, and a rebuild from the attempts gives the same state."""

import io
import json
import random

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from progress.accounts.models import User
from progress.engine.learner_model import FEATURES
from progress.mocks.models import MockExam
from progress.practice.models import Attempt, Quiz
from progress.readiness.in_use import current_model, starting_params
from progress.readiness.models import (
    MIN_FIT_ANSWERS,
    ExamAbility,
    QuestionReadiness,
    ReadinessFit,
    TopicReadiness,
)
from tests.factories import (
    ExamFactory,
    QuestionFactory,
    TopicFactory,
    UserFactory,
    record_answer,
)
from tests.readiness_store import run_batch, snapshot
from tests.threads import run_at_once

pytestmark = pytest.mark.django_db


def answer(learner, question, right: bool):
    record_answer(learner, question, right)


def test_an_answer_moves_the_learner_and_the_question():
    learner = UserFactory()
    question = QuestionFactory()
    answer(learner, question, right=True)
    # The question's difficulty moves with the next batch, not in the learner's transaction.
    assert not QuestionReadiness.objects.exists()
    assert run_batch() == {question.topic.exam_id: 1}
    topic = TopicReadiness.objects.get(learner=learner, topic=question.topic)
    item = QuestionReadiness.objects.get(question=question)
    row = ExamAbility.objects.get(learner=learner, exam=question.topic.exam)
    prior = current_model().model.params
    # A right answer: the learner's abilities go up, the question looks easier, and both are
    # surer than before.
    assert topic.ability > 0
    assert topic.variance < prior.topic_variance
    assert row.state["overall"]["ability"] > 0
    assert row.state["overall"]["variance"] < prior.ability_variance + prior.ability_drift
    assert item.difficulty < 0
    assert item.variance < prior.item_variance
    assert (row.answers, topic.answers, item.answers) == (1, 1, 1)
    # It moved the topic's readiness up, and the row keeps which answer did.
    [(attempt_id, topic_id, question_id, right, points)] = row.movers
    assert (topic_id, question_id, right) == (question.topic_id, question.pk, True)
    assert attempt_id == Attempt.objects.get(learner=learner).pk
    assert points > 0
    assert topic.state["wins"] == 1
    assert topic.state["fails"] == 0

    other = UserFactory()
    answer(other, question, right=False)
    run_batch()
    # The second learner's miss makes the question look harder again.
    assert QuestionReadiness.objects.get(question=question).difficulty > item.difficulty
    assert TopicReadiness.objects.get(learner=other).ability < 0


def test_quiz_and_mock_answers_update_the_state(client):
    learner = UserFactory()
    client.force_login(learner)
    exam = ExamFactory(mock_question_count=3)
    topic = TopicFactory(exam=exam)
    questions = QuestionFactory.create_batch(3, topic=topic)
    quiz = Quiz.objects.start(learner=learner, exam=exam, topic=topic, selection="any", length=1)
    item = quiz.items.select_related("question").get()
    key = item.question.options.get(is_correct=True).key
    client.post(reverse("quiz_item", args=[quiz.code, 1]), {"choice": key})
    assert TopicReadiness.objects.get(learner=learner).answers == 1

    mock = MockExam.objects.start(learner=learner, exam=exam)
    for mock_item in mock.items.select_related("question"):
        mock_item.chosen_keys = [mock_item.question.options.filter(is_correct=False)[0].key]
        mock_item.save()
    assert mock.submit()
    assert TopicReadiness.objects.get(learner=learner).answers == 4
    assert ExamAbility.objects.get(learner=learner).answers == 4
    run_batch()
    assert sum(QuestionReadiness.objects.values_list("answers", flat=True)) == 4
    assert {q.pk for q in questions} == set(QuestionReadiness.objects.values_list("pk", flat=True))


def play(seed: int, learners: int = 4, answers: int = 40):
    rng = random.Random(seed)
    exam = ExamFactory()
    topics = [TopicFactory(exam=exam) for _ in range(3)]
    questions = [QuestionFactory(topic=topics[k % 3]) for k in range(12)]
    users = [UserFactory() for _ in range(learners)]
    for _ in range(answers):
        answer(rng.choice(users), rng.choice(questions), right=rng.random() < 0.6)
    return users, questions


def test_rebuild_gives_the_state_the_answers_built():
    play(seed=1)
    run_batch()
    incremental = snapshot()
    out = io.StringIO()
    call_command("rebuild_readiness", "--no-fit", stdout=out, stderr=io.StringIO())
    answered = Attempt.objects.values("question").distinct().count()
    assert f"readiness of 4 learners and {answered} questions from 40 answers" in out.getvalue()
    assert snapshot() == incremental


def test_rebuild_recovers_lost_state_and_drops_nothing_else():
    users, _ = play(seed=2)
    run_batch()
    incremental = snapshot()
    TopicReadiness.objects.filter(learner=users[0]).delete()
    QuestionReadiness.objects.update(difficulty=3.0)
    call_command("rebuild_readiness", "--no-fit", stdout=io.StringIO(), stderr=io.StringIO())
    assert snapshot() == incremental


def test_rebuild_fits_once_there_are_enough_attempts_and_says_why_not_before():
    play(seed=3, learners=3, answers=30)
    out = io.StringIO()
    call_command("rebuild_readiness", stdout=out, stderr=io.StringIO())
    assert "No new parameters: 30 answers by 3 learners are too few" in out.getvalue()
    assert not ReadinessFit.objects.exists()

    play(seed=4, learners=12, answers=MIN_FIT_ANSWERS + 40)
    run_batch()
    out, err = io.StringIO(), io.StringIO()
    call_command("rebuild_readiness", stdout=out, stderr=err)
    fit = ReadinessFit.objects.get()
    assert fit.answers == Attempt.objects.count()
    assert fit.learners == 15
    assert fit.last_attempt_id == Attempt.objects.order_by("-pk").first().pk
    assert "New parameters: fitted on 270 answers of 15 learners" in out.getvalue()
    # Too few answers to choose the questions' context factor on the site's own learners.
    assert "question context factor 0.5, set (chosen from 20,000 answers)" in out.getvalue()
    # Two fits from different starts, merged into the one model in use.
    assert "; merged with 1 more fit (" in out.getvalue()
    assert "replayed 270 of 270 answers (100%)" in err.getvalue()
    assert current_model().fit_id == fit.pk
    rebuilt = snapshot()
    # The fitted questions start from their fitted difficulty and are not taught twice by
    # the attempts they were fitted on; a second replay with the same fit changes nothing.
    params = current_model().model.params
    some = next(iter(params.items))
    assert rebuilt[3][int(some)][0] == pytest.approx(params.items[some].difficulty)
    call_command("rebuild_readiness", "--no-fit", stdout=io.StringIO(), stderr=io.StringIO())
    assert snapshot() == rebuilt
    # Answers after the fit teach the questions again, as recorded and as replayed.
    question = QuestionReadiness.objects.select_related("question").first().question
    before = QuestionReadiness.objects.get(question=question).difficulty
    for learner in User.objects.filter(attempts__isnull=False).distinct()[:2]:
        answer(learner, question, right=False)
    run_batch()
    after = snapshot()
    assert after[3][question.pk][0] > before
    call_command("rebuild_readiness", "--no-fit", stdout=io.StringIO(), stderr=io.StringIO())
    assert snapshot() == after


def test_the_command_says_how_far_it_got(capsys):
    play(seed=5, learners=2, answers=10)
    call_command("rebuild_readiness", "--no-fit")
    captured = capsys.readouterr()
    assert "replayed 10 of 10 answers (100%)" in captured.err
    assert "from 10 answers" in captured.out


# Concurrency: real threads, real connections (PostgreSQL in CI). ----------------------------


@pytest.mark.django_db(transaction=True)
def test_concurrent_answers_lose_no_update():
    topic = TopicFactory()
    questions = QuestionFactory.create_batch(3, topic=topic)
    users = UserFactory.create_batch(3)
    # Every learner answers every question, all at once: one learner's answers race each
    # other on the learner's rows, and different learners race on each question's row.
    jobs = []
    for user in users:
        for question in questions:

            def job(user=user, question=question):
                client = Client()
                client.force_login(user)
                key = question.options.get(is_correct=True).key
                response = client.post(question.get_absolute_url(), {"choice": key})
                assert response.status_code == 200

            jobs.append(job)
    assert run_at_once(jobs) == []
    assert Attempt.objects.count() == 9
    assert sorted(ExamAbility.objects.values_list("answers", flat=True)) == [3, 3, 3]
    assert sorted(TopicReadiness.objects.values_list("answers", flat=True)) == [3, 3, 3]
    run_batch()
    assert sorted(QuestionReadiness.objects.values_list("answers", flat=True)) == [3, 3, 3]
    for row in TopicReadiness.objects.all():
        assert row.state["wins"] == 3
    # Each update saw the one before it: replaying the attempts in the order they were
    # recorded gives the same state.
    recorded = snapshot()
    call_command("rebuild_readiness", "--no-fit", stdout=io.StringIO(), stderr=io.StringIO())
    assert snapshot() == recorded


def test_admins_see_the_fits_and_cannot_edit_them(client):
    from tests.factories import StaffFactory

    ReadinessFit.objects.create(params={}, answers=300, learners=12, summary="fitted on 300")
    client.force_login(StaffFactory())
    listing = client.get(reverse("admin:progress_readinessfit_changelist"))
    assert listing.status_code == 200
    assert "fitted on 300" in listing.text
    assert client.get(reverse("admin:progress_readinessfit_add")).status_code == 403


def test_questions_met_before_count_without_growing_the_stored_state():
    # Parameters in which a question met before weighs (the starting ones have no such weight).
    params = starting_params()
    params.weights[FEATURES.index("item_wins")] = 0.8
    params.weights[FEATURES.index("item_fails")] = -0.9
    ReadinessFit.objects.create(params=json.loads(params.to_json()))
    learner = UserFactory()
    question, other = QuestionFactory.create_batch(2)  # each in a topic of its own
    for right in (False, False, True):
        answer(learner, question, right=right)
    answer(learner, other, right=True)
    row = TopicReadiness.objects.get(learner=learner, topic=question.topic)
    assert row.state["items"] == {}  # the attempts hold the per-question counts
    assert row.answers == 3
    # The same answers through the model alone, which keeps the counts in memory: the stored
    # state saw the question's history (two misses before the right answer) just the same.
    # (No batch ran between the answers: the question's difficulty stood still.)
    in_use = current_model()
    model, state, item = in_use.model, in_use.model.new_learner(), in_use.new_item()
    for right in (False, False, True):
        model.update(
            state, str(question.topic_id), str(question.pk), right, item=item, learn_item=False
        )
    assert row.ability == pytest.approx(state.topics[str(question.topic_id)].ability)
    assert row.variance == pytest.approx(state.topics[str(question.topic_id)].variance)
    # Without the history the third answer would have moved the learner differently.
    forgetful, item = model.new_learner(), in_use.new_item()
    for right in (False, False, True):
        model.update(
            forgetful, str(question.topic_id), str(question.pk), right, item=item, learn_item=False
        )
        forgetful.topics[str(question.topic_id)].items.clear()
    assert row.ability != pytest.approx(forgetful.topics[str(question.topic_id)].ability)


def test_readiness_on_an_exam_moves_only_with_that_exams_answers():
    from progress.readiness.standing import standings

    learner = UserFactory()
    cloud = QuestionFactory.create_batch(6, topic=TopicFactory(exam=ExamFactory(code="CLOUD")))
    network = QuestionFactory.create_batch(6, topic=TopicFactory(exam=ExamFactory(code="NET")))
    for question in cloud[:3]:
        answer(learner, question, right=False)
    exam = cloud[0].topic.exam

    def cloud_figures():
        [standing] = standings(learner, [exam])
        return [(t.topic.pk, round(t.readiness.percent, 9)) for t in standing.topics]

    before = cloud_figures()
    for question in network:
        answer(learner, question, right=True)
    assert cloud_figures() == before
    # Each exam has its own overall ability; the learner's answers are counted on both.
    rows = {r.exam.code: r for r in ExamAbility.objects.select_related("exam")}
    assert (rows["CLOUD"].answers, rows["NET"].answers) == (3, 6)
    assert rows["CLOUD"].state["overall"]["ability"] < 0 < rows["NET"].state["overall"]["ability"]
    assert sum(ExamAbility.objects.values_list("answers", flat=True)) == 9
