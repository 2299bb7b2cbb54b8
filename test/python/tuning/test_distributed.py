"""Builds fanned out over Dask distributed: a local in-process cluster
builds candidates, the local runner measures them against the reference."""

from __future__ import annotations

import pytest
from tuning_models import conv_model, relay_of

from xtvm.tuning.measure import LocalRunner, MeasureErrorNo, MeasureInput
from xtvm.tuning.task import extract_tasks

distributed = pytest.importorskip("distributed")


def test_a_local_dask_cluster_builds_candidates():
    from xtvm.autotvm.space import ConfigEntity, OtherOptionEntity
    from xtvm.tuning.distributed import DaskBuilder

    mod, params = relay_of(conv_model(channels=3, out=32, size=30, stride=2))
    (task,) = extract_tasks(mod, params)
    space = task.config_space
    inputs = [MeasureInput(task, space.get(i)) for i in (len(space) - 1,)]
    inputs.append(MeasureInput(task, ConfigEntity(0, {"tile_ow": OtherOptionEntity(3)})))  # refused
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        builder = DaskBuilder(client)
        builds = builder.build(inputs)
        runner = LocalRunner(check=True, repeat=1, min_repeat_ms=0)
        try:
            results = runner.run(inputs, builds)
        finally:
            runner.close()
            builder.close()
    assert results[0].error_no == 0, results[0].costs
    assert results[1].error_no == MeasureErrorNo.INSTANTIATION_ERROR
