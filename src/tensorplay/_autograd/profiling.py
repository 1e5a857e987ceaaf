"""The profiler's hook into the engine: while ``autograd.profiler.profile`` is
active, ``ACTIVE[0]`` is its recorder, and the engine runs its checked loop,
which brackets each node's backward with ``push(name)`` / ``pop()``.  When no
profiler is active the engine reads this once per backward pass, nothing per node."""
ACTIVE = [None]
