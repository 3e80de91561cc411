"""Planning: the proposal a human approves (``proposal``), how it is built from the shop and the new
order (``propose``, ``materials``, ``greedy``), and the messages drafted with it (``drafts``)."""
