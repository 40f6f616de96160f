"""Human listening rounds: anonymized kits built from runs, rating sheets, per-dimension reports, workflow.

Automatic scores say whether a number was kept; listeners say whether a voice sounds right for
its variety. This package turns runs into a kit of anonymous clips and listening pages
(:mod:`~pytest_ttsbench.listening.kit`), reads the sheets listeners send back into per-system,
per-prompt, per-dimension figures (:mod:`~pytest_ttsbench.listening.report`), and measures the
workflow apart from any rating (:mod:`~pytest_ttsbench.listening.workflow`).
"""
