"""Keeping a case study's questions together when a quiz is drawn: a testlet's questions
share one scenario, and answering them one after the other is the point of it."""

from collections.abc import Sequence

from questions.models import Question


def together(drawn: Sequence[tuple[int, int | None]], length: int | None) -> list[int]:
    """The ids of a quiz drawn as (question id, case study id or None), in the draw's order,
    with each case study met brought in whole, at the place of its first question drawn, in
    its own order. A case study that no longer fits in `length` (None: no limit) is left out
    for the questions after it, unless nothing came before it. No query when no case study
    was drawn; one for their questions otherwise."""
    cases = {case for _, case in drawn if case is not None}
    if not cases:
        return [pk for pk, _ in drawn][:length]
    members: dict[int, list[int]] = {}
    for pk, member_of in (
        Question.objects.published()
        .filter(case_study__in=cases)
        .order_by("position", "uid")
        .values_list("pk", "case_study_id")
    ):
        members.setdefault(member_of, []).append(pk)
    ids: list[int] = []
    placed: set[int | None] = set()
    for pk, case in drawn:
        unit = [pk] if case is None else members.get(case, [pk])
        if case is not None and case in placed:
            continue
        placed.add(case)
        unit = [q for q in unit if q not in ids]
        if length is not None and len(ids) + len(unit) > length:
            if ids:
                continue
            unit = unit[:length]
        ids += unit
    return ids
