"""The question bank's background tasks, which the scheduler (`manage.py crontask`) imports
for the `questions` app; the worker (`manage.py db_worker`) runs them."""

from crontask import cron
from django.tasks import task

from questions.media import remove_orphan_files, remove_unused_media


@cron("40 3 * * *")
@task
def remove_unused_question_media() -> int:
    """Delete the images no question, option or rationale shows any more (stored over a day
    ago: a curator uploads an image before pasting it into a question). Daily rather than
    after each save: finding what is used reads every text of the bank. Then the files no
    image row describes (an import rolled back after storing them), stored over a day ago."""
    return remove_unused_media() + remove_orphan_files()
