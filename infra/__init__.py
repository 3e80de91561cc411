"""CDK infrastructure: one stack that composes, one construct per concern."""
