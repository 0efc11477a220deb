"""Mock exams: the draw, the timed sitting, its submission, the report and the review."""
