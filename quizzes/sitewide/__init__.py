"""Site-wide HTTP plumbing, for pages and the API alike: request guards and response headers (middleware),
the 400 handler, ``/healthz`` and ``/favicon.ico``. An interface layer: it imports no domain package."""
