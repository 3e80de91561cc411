"""One construct per concern; the stack composes them."""
