"""Training: float32 torch modules for the registry's architectures, a deterministic
training loop, and conversions to and from :class:`~fsmnet.nets.Network`.

torch is imported only by the submodules (``import fsmnet.train`` stays light).
Modules: :mod:`~fsmnet.train.scan` (parallel scans), :mod:`~fsmnet.train.modules_linear`,
:mod:`~fsmnet.train.modules_block`, :mod:`~fsmnet.train.modules_minmax`,
:mod:`~fsmnet.train.lstm`, :mod:`~fsmnet.train.convert`, :mod:`~fsmnet.train.data`,
:mod:`~fsmnet.train.loop`, :mod:`~fsmnet.train.report` (accuracy against length, the plot).
"""
