# a guard on y of r - 1: the fix is r's range, shifted; dynamic_shapes: {'x': {0: Dim('r', min=1, max=16)}, 'y': {0: r - 1}}
