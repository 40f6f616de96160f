"""Plumbing every layer may import: strict readers, the HTTP client and its deadlines, bounded
processes, redaction, statistics.
"""
