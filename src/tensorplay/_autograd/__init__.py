"""The autograd core: what every layer above needs and nothing above it knows.

- ``grad_mode``: thread-local grad mode and its context managers;
- ``graph``: ``Node``, edges, ``AccumulateGrad``, hook handles;
- ``engine``: runs a backward pass over the graph;
- ``anomaly_mode``: anomaly-detection state, creation stacks, error reports;
- ``saved_hooks``: saved-tensor hook state and the in-place version error.

It sits below ``Tensor``: it imports no tensorplay module outside this
package and no NumPy.  A gradient is any value that supports ``+``; what a
value needs beyond that, it provides itself (``node.validate(g, i)``,
``value._has_nan()`` under anomaly detection, ``variable._accumulate_grad``).
The public names are re-exported by ``tensorplay.autograd``.
"""
