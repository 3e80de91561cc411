"""Intake: a customer's message read into the facts of an order (``customer_message``, ``facts``,
``dates``), e-mails received by SES (``inbound_mail``) and recorded submissions (``submissions``)."""
