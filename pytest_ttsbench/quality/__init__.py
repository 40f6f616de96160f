"""Per-clip quality measures beyond the transcript: signal checks, DNSMOS and speaker similarity.

Measured in the pipeline for every decoded clip (``measures``, ``waveform``, ``dnsmos``,
``similarity``, ``meter``), summarized per bucket (``summary``), gated apart from accuracy
(``gates``) and compared across generations (``repeats``). ``measures`` and ``gates`` import no
numerical library, so the plugin can parse options without loading numpy or a model.
"""
