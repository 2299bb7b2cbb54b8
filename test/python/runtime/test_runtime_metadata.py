"""The metadata blob: layout, alignment, zero-copy unpacking, errors."""

import json
import struct

import numpy as np
import pytest

from xtvm.runtime import XTVMError, load_param_dict, pack_metadata, save_param_dict, unpack_metadata
from xtvm.runtime.ndarray import array


def test_round_trip_layout_and_alignment():
    params = {"w": np.arange(12, dtype="float32").reshape(3, 4), "b": np.array([1, 2], "int8")}
    header = {"functions": {"f": {"args": [], "asserts": []}}, "graph_json": "{}"}
    blob = pack_metadata(header, params)
    assert "params" not in header  # the caller's dict is left alone
    (header_len,) = struct.unpack_from("<Q", blob)
    assert (8 + header_len) % 64 == 0
    stored = json.loads(blob[8 : 8 + header_len])
    assert stored["version"] == 1
    assert stored["params"]["w"] == {"shape": [3, 4], "dtype": "float32", "offset": 0, "nbytes": 48}
    assert stored["params"]["b"]["offset"] == 64
    out_header, out_params = unpack_metadata(blob)
    assert out_header["functions"] == header["functions"] and out_header["graph_json"] == "{}"
    for name, value in params.items():
        np.testing.assert_array_equal(out_params[name], value)
        assert out_params[name].dtype == value.dtype
        assert not out_params[name].flags.writeable


def test_unpack_is_zero_copy():
    buf = bytearray(pack_metadata({"functions": {}}, {"p": np.zeros(4, "int32")}))
    _, params = unpack_metadata(buf)
    start = 8 + struct.unpack_from("<Q", buf)[0]
    buf[start : start + 16] = np.arange(4, dtype="int32").tobytes()
    np.testing.assert_array_equal(params["p"], np.arange(4))


@pytest.mark.parametrize(
    "blob, message",
    [
        (b"abc", "shorter than its header"),
        (struct.pack("<Q", 1000) + b"{}", "exceeds"),
        (struct.pack("<Q", 3) + b"{x}", "bad JSON header"),
        (struct.pack("<Q", 13) + b'{"version":9}', "unsupported xtvm metadata version 9"),
    ],
)
def test_bad_blobs(blob, message):
    with pytest.raises(XTVMError, match=message):
        unpack_metadata(blob)


def test_param_out_of_bounds():
    blob = bytearray(pack_metadata({"functions": {}}, {"p": np.zeros(16, "float32")}))
    with pytest.raises(XTVMError, match="parameter 'p'"):
        unpack_metadata(blob[:-8])


def test_param_dict_round_trip():
    saved = save_param_dict({"a": np.eye(2), "b": np.array(True), "c": array([1, 2])})
    params = load_param_dict(saved)
    np.testing.assert_array_equal(params["c"], [1, 2])
    np.testing.assert_array_equal(params["a"], np.eye(2))
    assert params["b"].dtype == bool and params["b"].shape == ()
