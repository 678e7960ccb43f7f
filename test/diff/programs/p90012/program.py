# a Dim twice an AUTO dim of a tuple's second tensor: the fix names that dim; dynamic_shapes: {'x': {0: Dim('d', max=64)}, 'xs': (None, {0: DimHint(AUTO)})}
