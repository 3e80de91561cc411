"""Pure domain: shop model, planning, hashing, verification. Imports no boto3, strands or os.environ."""
