# a guard on x of r with y of r - 1: the violation names r - 1; dynamic_shapes: {'x': {0: Dim('r', min=1, max=16)}, 'y': {0: r - 1}}
