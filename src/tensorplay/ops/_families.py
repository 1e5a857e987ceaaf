"""Op families: the rules that most ops share, so an entry states only what is its own.

An entry names its family (``family=ELEMENTWISE``) and, where it has them, the
parameters that are dimensions (``dims=("dim",)``) and whether it is linear in
its tensor inputs (``linear=True``).  The family supplies the default
forward-mode rule (``jvp``) and vmap batching rule (``batch``), as JAX's
``defvectorized``/``deflinear`` and PyTorch's ``auto_element_wise``/
``auto_linear`` do; an entry writes its own only where the family's is wrong
or slow.

=============  ==============================================================
ELEMENTWISE    each output element depends on the same (broadcast) element of
               every input: sin, mul, where, clamp, comparisons
REDUCTION      reduces over the dimensions named in ``dims``: sum, amax, std
ALONG_DIM      keeps the shape, works along ``dims``: softmax, cumsum, sort
VIEW           returns a view of its first input: transpose, select, expand
SHAPE          rearranges elements into a new tensor: cat, flip, repeat, tril
INDEXING       reads or writes elements chosen by an index tensor: gather
BILINEAR       linear in each tensor input separately: mm, matmul, dot, outer
LINALG         matrix functions over the last two dimensions: inv, det, svd
SAMPLING       draws random numbers
OTHER          none of the above: rules written in the entry or none
=============  ==============================================================
"""


class Family:
    """A family's name and its default rules (``None``: no default)."""
    __slots__ = ("name", "jvp", "batch")

    def __init__(self, name, jvp=None, batch=None):
        self.name, self.jvp, self.batch = name, jvp, batch

    def __repr__(self):
        return f"<family {self.name}>"


ELEMENTWISE = Family("elementwise")
REDUCTION = Family("reduction")
ALONG_DIM = Family("along_dim")
VIEW = Family("view")
SHAPE = Family("shape")
INDEXING = Family("indexing")
BILINEAR = Family("bilinear")
LINALG = Family("linalg")
SAMPLING = Family("sampling")
OTHER = Family("other")
FAMILIES = (ELEMENTWISE, REDUCTION, ALONG_DIM, VIEW, SHAPE, INDEXING, BILINEAR, LINALG,
            SAMPLING, OTHER)
