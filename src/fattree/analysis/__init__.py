"""Analysis: properties computed from the graph, the papers' closed forms, cost models.

Submodules are imported on demand (``from fattree.analysis.properties import
properties``) so that importing one concern does not pull in the others.
"""
