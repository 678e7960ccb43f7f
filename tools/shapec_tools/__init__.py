"""Python side of shapec: converting PyTorch modules into shapec's input format, reading
and writing its files, and the reference evaluator built on PyTorch's own operators."""
