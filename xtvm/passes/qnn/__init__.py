"""Passes on the ``qnn`` dialect: ``qnn-canonicalize`` (qnn → integer
relay) and ``qnn-fake-quantization-to-integer`` (float QDQ regions → qnn)."""
