# a phantom Dim's r + 1 narrowed to r rows: the same guard; dynamic_shapes: {'x': {0: r + 1}}
