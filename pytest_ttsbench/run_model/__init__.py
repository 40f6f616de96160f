"""The run model: what a run writes (results rows, run header, manifest) and the one reader of it;
reruns, shards, merges; and the files a run reads and rewrites beside its results (known
gaps, transcript snapshots).
"""
