"""The cluster and its fabrics: sizing, planes in closed form, one pattern per hop."""
