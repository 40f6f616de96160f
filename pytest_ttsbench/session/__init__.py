"""The pytest session and collection: the benchmark session object, case-file collection nodes, what a
run leaves out.
"""
