"""The question bank's background tasks, run by the worker (`manage.py db_worker`); when they
run is in the site's one schedule (`progress.tasks`)."""

from django.tasks import task

from questions.media.images import remove_orphan_files, remove_unused_media


@task
def remove_unused_question_media() -> int:
    """Delete the images no question, option or rationale shows any more (stored over a day
    ago: a curator uploads an image before pasting it into a question). Daily rather than
    after each save: finding what is used reads every text of the bank. Then the files no
    image row describes (an import rolled back after storing them), stored over a day ago."""
    return remove_unused_media() + remove_orphan_files()
