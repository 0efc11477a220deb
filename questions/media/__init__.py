"""Question images: accepted by their content, stored once per content through Django's storage
and named by URL in markdown (images.py), served by that name (views.py), uploaded in the
admin (admin.py), and removed by a nightly task once no question shows them (tasks.py)."""
