"""The ONNX node cases of the CI subset compiled for the C target: a sample
across the op families in the default run, the whole subset as a slow test
(``python -m xtvm.frontend.onnx.conformance --ci-subset --target c`` is the
same run from the shell)."""

from __future__ import annotations

import shutil

import pytest

from xtvm.frontend.onnx import conformance

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")

SAMPLE = [
    "test_averagepool_2d_ceil",  # pooling
    "test_batchnorm_epsilon",  # normalisation
    "test_bitshift_left_int16",  # integer bit ops
    "test_cast_DOUBLE_to_FLOAT16",  # casts, f16
    "test_convtranspose",  # convolution
    "test_cumsum_1d_exclusive",  # scans
    "test_einsum_batch_matmul",  # contractions
    "test_gather_elements_1",  # indexing
    "test_gelu_default_1",  # erf, elementwise maths
    "test_gemm_all_attributes",  # dense
    "test_isnan_float16",  # f16 comparisons
    "test_lrn",  # windowed reductions
    "test_matmulinteger",  # integer matmul
    "test_mod_float16_mixed_sign_fmod_0",  # extern fmod on f16
    "test_qlinearconv",  # quantized
    "test_reduce_max_bool_inputs",  # bool reductions
    "test_resize_downsample_scales_cubic",  # resampling
    "test_softmax_axis_0",  # softmax
    "test_topk" if "test_topk" in conformance.read_ci_cases() else "test_hardmax_axis_1",  # sorting
    "test_where_example",  # select
    "test_nonzero_example",  # value-dependent shape (VM: shape kernel, ? buffers)
    "test_unique_sorted_without_axis",  # value-dependent shape, dynamic allocations
    "test_tile",  # run-time repeats: shape variables bound by the packed entry
]


@pytest.fixture(scope="module")
def cases() -> dict:
    everything = conformance.collect_cases()
    return {"by_name": {c.name: c for c in everything}, "ops": conformance.operators(everything)}


def test_sample_is_in_the_ci_subset() -> None:
    assert set(SAMPLE) <= set(conformance.read_ci_cases())


@pytest.mark.parametrize("name", SAMPLE)
def test_case_passes_with_target_c(name: str, cases: dict) -> None:
    result = conformance.run_case(cases["by_name"][name], cases["ops"][name], target="c")
    assert result.status == "pass", result.error


@pytest.mark.slow
def test_whole_ci_subset_passes_with_target_c(cases: dict) -> None:
    names = conformance.read_ci_cases()
    chosen = [cases["by_name"][n] for n in names]
    results = conformance.run_cases(chosen, cases["ops"], target="c")
    failed = [f"{r.name}: [{r.status}] {r.error}" for r in results if r.status != "pass"]
    assert not failed, "\n".join(failed)
