"""x86 computes and schedules of the heavy ops (TVM's ``topi.x86``).

* ``conv2d``: NCHW convolution on weights packed ``OIHW<b>o`` (``b`` output
  channels, one vector register, innermost), register-blocked;
* ``conv2d_int8``: u8 × s8 → s32 convolution on weights packed
  ``OIHW<b>o4i`` (four input channels a word), one AVX-512 VNNI
  ``vpdpbusd`` per step;
* ``dense``: dense on weights packed ``NK<b>n``;
* ``dense_int8``: u8 × s8 → s32 dense on weights packed ``NK<b>n4k``,
  ``vpdpbusd`` as ``conv2d_int8``;
* ``depthwise``: depthwise conv2d, vectorized along the output rows;
* ``injective``: parallel, vectorized injective kernels and reductions;
* ``lrn``: LRN with a row schedule that suits its long expression;
* ``pool``: max and average pools, padded once and vectorized along rows
  (or along the channel block of blocked data);
* ``config``: the blocking each op uses for a target, shared by
  ``relay-alter-op-layout`` (which packs the weights, importing only
  ``xtvm.topi.x86.config``) and the schedules.

The package exports the kernels' computes.
"""

from xtvm.topi.x86.conv2d import conv2d_packed
from xtvm.topi.x86.conv2d_int8 import conv2d_int8_packed
from xtvm.topi.x86.dense import dense_pack
from xtvm.topi.x86.dense_int8 import dense_int8_packed
from xtvm.topi.x86.depthwise import depthwise_conv2d_nchw
from xtvm.topi.x86.lrn import lrn
from xtvm.topi.x86.pool import global_pool, pool

__all__ = [
    "conv2d_int8_packed",
    "conv2d_packed",
    "dense_int8_packed",
    "dense_pack",
    "depthwise_conv2d_nchw",
    "global_pool",
    "lrn",
    "pool",
]
