"""NumPy reference implementations (TVM's ``topi.testing``): pure NumPy, no IR."""
