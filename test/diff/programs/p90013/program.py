# a phantom Dim's r + 1 sliced to r rows: torch guards -1 + x.size()[0] >= 2, where x * 2 alone runs 0 rows (p90003); dynamic_shapes: {'x': {0: r + 1}}
