"""The conformance runner (CONFORMANCE format v1): python3 -m tollgate.conformance."""
