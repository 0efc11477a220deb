"""The public pages of the bank: the catalog, an exam's blueprint, a topic, and the question
page with answer-then-reveal (views.py, with its answer form in forms.py). A question page
is served from its cached snapshot (snapshot.py, built from the written-out reads of
query.py) and dropped when a curator changes it; the listings are cached per version of
the bank (listings.py); the learner side adds its parts through one hook (extensions.py);
search engines get the sitemaps (sitemaps.py)."""
