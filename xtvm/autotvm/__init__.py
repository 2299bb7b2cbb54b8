"""AutoTVM: schedule templates with knobs, searched by tuners.

* :mod:`.space`: the config space templates define (``define_split``,
  ``define_reorder``, ``define_annotate``, ``define_knob``);
* :mod:`.dispatch`: which config a template gets while a kernel is built.

The x86 templates are the schedules of :mod:`xtvm.topi.x86` (``conv2d``,
``dense``, ``depthwise``), which read their knobs from
:func:`~xtvm.autotvm.dispatch.current_config`.
"""
