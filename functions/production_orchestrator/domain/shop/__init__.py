"""The shop: machines, materials, products, orders and their schedule (``model``), the shop file
(``file_format``) and what changed between two states (``changes``)."""
