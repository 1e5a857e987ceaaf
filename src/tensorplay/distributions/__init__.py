"""Probability distributions with PyTorch's ``torch.distributions`` API:
parameterizable distributions with ``sample``/``rsample`` (reparameterized,
differentiable samples), ``log_prob``, ``cdf``/``icdf``, ``entropy``, moments,
argument and support validation (``constraints``), and ``kl_divergence``.

Every quantity is written in tensorplay ops, so gradients (and gradients of
gradients, where the ops have them) flow to the parameters.  Sampling draws
from tensorplay's default generator: a seeded run repeats (the numbers are not
PyTorch's).
"""
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multinomial import Multinomial
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .studentT import StudentT
from .uniform import Uniform
from .von_mises import VonMises
from . import transforms  # noqa: F401
from .constraint_registry import biject_to, transform_to
from .transforms import *  # noqa: F401,F403
from .transformed_distribution import TransformedDistribution
from .independent import Independent
from .log_normal import LogNormal
from .gumbel import Gumbel
from .weibull import Weibull
from .pareto import Pareto
from .kumaraswamy import Kumaraswamy
from .logistic_normal import LogisticNormal
from .multivariate_normal import MultivariateNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .fishersnedecor import FisherSnedecor
from .wishart import Wishart
from .lkj_cholesky import LKJCholesky
from .continuous_bernoulli import ContinuousBernoulli
from .inverse_gamma import InverseGamma
from .generalized_pareto import GeneralizedPareto
from . import _kl_more  # noqa: F401   (registers the KL pairs of the classes above)

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
    "Distribution", "Exponential", "ExponentialFamily", "Gamma", "Geometric", "HalfCauchy",
    "HalfNormal", "Laplace", "Multinomial", "NegativeBinomial", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Poisson", "StudentT", "Uniform", "VonMises",
    "kl_divergence", "register_kl",
    "ContinuousBernoulli", "FisherSnedecor", "Gumbel", "Independent", "Kumaraswamy",
    "LKJCholesky", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal",
    "MixtureSameFamily", "MultivariateNormal", "Pareto", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "TransformedDistribution", "Weibull", "Wishart",
    "biject_to", "transform_to", "InverseGamma", "GeneralizedPareto",
]
__all__.extend(transforms.__all__)
