# The tutorial programs here are scripts that train at import time: tests/test_tutorials.py
# runs them. Keep pytest (and --doctest-modules) from importing them as test modules.
collect_ignore_glob = ["*.py"]
