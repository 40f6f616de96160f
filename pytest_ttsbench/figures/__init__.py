"""What a run's rows add up to: verdict buckets and their intervals (summary), the vote of the ASR
routes on one target (voting), each route's contribution (diagnostics), clip-length controls
(numeral_forms), time to first byte and synthesis time (workflow).

Import the modules themselves (``pytest_ttsbench.figures.summary`` ...): this package imports
nothing on its own, so loading one of them never loads the others.
"""
