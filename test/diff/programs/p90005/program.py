# a guard on a phantom Dim's r - 1: a violation named r - 1, no fix; dynamic_shapes: {'x': {0: r - 1}}
