"""Long-term memory: fact templates, recall, the Agent Memory client, the
embedded engine, and the local outbox."""
