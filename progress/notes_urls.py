from django.urls import path

from progress import notes

urlpatterns = [
    path("bookmarks/", notes.bookmarks, name="bookmarks"),
    path("questions/<slug:uid>/bookmark/", notes.toggle_bookmark, name="bookmark_toggle"),
    path("questions/<slug:uid>/note/", notes.save_note, name="note_save"),
    path("questions/<slug:uid>/report/", notes.report_problem, name="report_problem"),
]
