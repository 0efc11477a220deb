"""Writing imported options and their rationales, shared by our JSON import and the foreign
formats (GIFT, Aiken, Moodle XML, QTI).

Options are matched to the stored ones by position, so that an edited option keeps its id:
what learners answered keeps pointing at it."""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from courseiva.lib.sql import insert_rows
from questions.models import Option, Question, Rationale

# Updates are written in batches of this many rows: a CASE expression per field grows with the
# batch, and SQLite evaluates it row by row.
UPDATE_BATCH = 1000
RATIONALE_FIELDS = ("why", "tempting_because", "right_when")


@dataclass(frozen=True)
class OptionValues:
    text: str
    correct: bool
    # Rationale field -> text; fields not named are left as they are.
    rationale: dict[str, str]


@dataclass
class OptionsWritten:
    # Ids of the questions whose options or rationales changed.
    touched: set[int] = field(default_factory=set)
    # Options left without a "why" (the admin flags them for the curator).
    empty_rationales: int = 0


def assign_changed(instance: object, values: Mapping[str, object]) -> bool:
    """Set `values` on `instance`; True when any of them differed."""
    differed = False
    for name, value in values.items():
        if getattr(instance, name) != value:
            setattr(instance, name, value)
            differed = True
    return differed


def write_options(
    planned: Sequence[tuple[Question, Sequence[OptionValues]]],
    stored_ids: Collection[int],
    *,
    keep_written: bool,
) -> OptionsWritten:
    """Bring each question's options to the planned ones in a few bulk statements.
    `stored_ids` are the questions that existed before this import: only they have options.

    With `keep_written`, a rationale text the source leaves empty does not overwrite what a
    curator wrote since the last import: foreign formats often carry no per-option feedback,
    and re-importing them must not erase the curator's work. Our JSON carries every rationale,
    so it overwrites."""
    # Read as values, not instances: on re-importing a large bank nearly all are unchanged,
    # and an instance (with its rationale's) per option cost more than the rest of the work.
    # Each row: option id, question id, position, text, correct, rationale id (None when
    # missing), then RATIONALE_FIELDS.
    stored: dict[int, list[tuple[Any, ...]]] = {}
    for stored_row in (
        Option.objects.filter(question__in=stored_ids)
        .order_by("question_id", "position", "id")
        .values_list(
            "pk",
            "question_id",
            "position",
            "text",
            "is_correct",
            "rationale__pk",
            *(f"rationale__{name}" for name in RATIONALE_FIELDS),
        )
    ):
        stored.setdefault(stored_row[1], []).append(stored_row)
    written = OptionsWritten()
    # (question id, position, text, correct) and the rationale of each option to create.
    new_options: list[tuple[int, int, str, bool]] = []
    new_whys: list[dict[str, str]] = []
    changed_options: list[Option] = []
    new_rationales: list[tuple[int | str, ...]] = []  # option id, then RATIONALE_FIELDS
    changed_rationales: list[Rationale] = []
    surplus: list[int] = []
    for row, options in planned:
        existing = stored.get(row.pk, [])
        for position, option in enumerate(options):
            values = {"position": position, "text": option.text, "is_correct": option.correct}
            why = option.rationale
            if position >= len(existing):
                new_options.append((row.pk, position, option.text, option.correct))
                new_whys.append(why)
                written.touched.add(row.pk)
                written.empty_rationales += not why.get("why")
                continue
            option_pk, _, *stored_values, rationale_pk = existing[position][:6]
            if stored_values != [position, option.text, option.correct]:
                changed_options.append(Option(pk=option_pk, **values))
                written.touched.add(row.pk)
            if rationale_pk is None:
                new_rationales.append(_rationale_row(option_pk, why))
                written.touched.add(row.pk)
                written.empty_rationales += not why.get("why")
                continue
            current = dict(zip(RATIONALE_FIELDS, existing[position][6:], strict=True))
            update = {name: text for name, text in why.items() if text or not keep_written}
            if {**current, **update} != current:
                current.update(update)
                changed_rationales.append(Rationale(option_id=option_pk, **current))
                written.touched.add(row.pk)
            written.empty_rationales += not current["why"]
        if len(existing) > len(options):
            surplus.extend(extra[0] for extra in existing[len(options) :])
            written.touched.add(row.pk)
    if surplus:
        Option.objects.filter(pk__in=surplus).delete()
    new_ids = insert_rows(
        Option, ["question_id", "position", "text", "is_correct"], new_options, returning_pk=True
    )
    Option.objects.bulk_update(
        changed_options, ["position", "text", "is_correct"], batch_size=UPDATE_BATCH
    )
    new_rationales.extend(
        _rationale_row(option_id, why) for option_id, why in zip(new_ids, new_whys, strict=True)
    )
    insert_rows(Rationale, ["option_id", *RATIONALE_FIELDS], new_rationales)
    Rationale.objects.bulk_update(changed_rationales, RATIONALE_FIELDS, batch_size=UPDATE_BATCH)
    return written


def _rationale_row(option_id: int, why: Mapping[str, str]) -> tuple[int | str, ...]:
    # A field the source does not carry is empty, as on a new Rationale.
    return (option_id, *(why.get(name, "") for name in RATIONALE_FIELDS))
