# a phantom Dim's r - 1: a size of its own in [0, 15]; dynamic_shapes: {'x': {0: r - 1}}
