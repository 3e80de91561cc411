"""Messages out: the outbox rows an applied plan queues, and how each is built for a transport."""
