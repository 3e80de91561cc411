"""AWS adapters: DynamoDB (shop store, approvals), S3 (agent sessions), SNS (notices), Step Functions.

Import the module you need: ``s3_sessions`` pulls in strands, the others do not.
"""
