"""Powertools Logger and Metrics, created once per process and shared by the handlers.

The service name comes from ``POWERTOOLS_SERVICE_NAME``. Handlers log ids as fields and never the
event: a task token or a link secret must not reach a log line.
"""

from __future__ import annotations

import logging
import os
import warnings

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit, single_metric

from ..contracts import ENV_SERVICE_NAME, METRIC_RESUME_REFUSED, METRICS_NAMESPACE

# Powertools reads POWERTOOLS_SERVICE_NAME itself; the fallback only names the logger when it is unset.
SERVICE_NAME = os.environ.get(ENV_SERVICE_NAME) or "production-orchestrator"

# A GET of the approval page or a request for approval publishes no metric, and that is expected.
warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)

# botocore's DEBUG wire log prints request bodies: SendTaskSuccess carries the task token, SNS Publish the
# link secrets. Pinned to INFO so that turning the function's log level to DEBUG cannot leak them.
for _wire in ("botocore", "boto3", "urllib3", "s3transfer"):
    logging.getLogger(_wire).setLevel(logging.INFO)

logger = Logger(service=SERVICE_NAME)
metrics = Metrics(namespace=METRICS_NAMESPACE)


def count(name: str) -> None:
    """Add one to metric ``name`` (flushed when the handler returns)."""
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)


def count_refusal(code: str, name: str = METRIC_RESUME_REFUSED) -> None:
    """``name`` (``ResumeRefused`` unless told) with the refusal code as its dimension, flushed on its own."""
    with single_metric(name=name, unit=MetricUnit.Count, value=1, namespace=METRICS_NAMESPACE) as metric:
        metric.add_dimension(name="code", value=code)
