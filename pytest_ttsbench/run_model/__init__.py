"""The run model: what a run writes (results rows, run header, manifest) and the one reader of it;
reruns, shards, merges.
"""
