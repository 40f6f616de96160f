"""One item through the chain: synthesis ahead of the tests, the content-addressed cache, generations,
the evaluator.
"""
