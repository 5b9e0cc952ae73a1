"""API views: one class per URL, one handler per operation, each with its own serializers and schema."""
